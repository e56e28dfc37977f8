import { describe, expect, it } from "vitest";
import { chatUrl } from "./commands/serve.js";

describe("the chat URL ocb serve prints", () => {
  it("carries a generated token in the fragment, which the browser never sends", () => {
    const url = chatUrl("http://127.0.0.1:4097", { value: "abc-DEF_123", generated: true });
    expect(url).toBe("http://127.0.0.1:4097/#token=abc-DEF_123");
    expect(new URL(url).pathname).toBe("/");
    expect(new URL(url).search).toBe("");
  });

  it("escapes a token's characters, and never echoes a token the user chose", () => {
    expect(chatUrl("http://h:1", { value: "a&b=c#d", generated: true })).toBe(
      "http://h:1/#token=a%26b%3Dc%23d",
    );
    const chosen = chatUrl("http://h:1", { value: "my-own-secret-0123456789", generated: false });
    expect(chosen).not.toContain("my-own-secret");
    expect(chosen).toContain("OCB_TOKEN");
  });
});
