import { describe, expect, it } from "vitest";
import { isLoopbackHost, pairingUrl } from "./pairing-url.js";

const HERE = { origin: "http://192.168.1.20:4747", pathname: "/" };

describe("the pairing URL", () => {
  it("carries the token and the open session in the fragment only", () => {
    const url = new URL(pairingUrl(HERE, "tok/en+1", { sessionId: "ses_1" }));
    expect(url.origin).toBe(HERE.origin);
    expect(url.search).toBe("");
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get("token")).toBe("tok/en+1");
    expect(fragment.get("session")).toBe("ses_1");
    expect(fragment.has("parent")).toBe(false);
  });

  it("names a child conversation's parent, and nothing when no session is open", () => {
    const child = new URL(pairingUrl(HERE, "t", { sessionId: "ses_c", parentId: "ses_p" }));
    expect(new URLSearchParams(child.hash.slice(1)).get("parent")).toBe("ses_p");
    expect(pairingUrl(HERE, "t", undefined)).toBe("http://192.168.1.20:4747/#token=t");
  });

  it("knows the hosts a phone cannot reach", () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "app.localhost"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["192.168.1.20", "my-laptop.local", "example.com", "[fe80::1]"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
