import { describe, expect, it } from "vitest";
import { defaultDeviceName } from "./device-name.js";
import { pairingProblemOf } from "./pairing-problem.js";
import { RemoteAccessError } from "./remote-library.js";

describe("the name a browser offers when it pairs", () => {
  it.each([
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      "Chrome on Android",
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      "Safari on iOS",
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      "Edge on Windows",
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.7; rv:133.0) Gecko/20100101 Firefox/133.0",
      "Firefox on macOS",
    ],
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
      "Chrome on Linux",
    ],
    ["curl/8.5.0", "A browser"],
  ])("%s → %s", (userAgent, name) => {
    expect(defaultDeviceName(userAgent)).toBe(name);
  });
});

describe("what the pairing screen says when pairing fails", () => {
  it("a refused or broken link: ask for a new one; the relay or sidecar away: try again", () => {
    expect(pairingProblemOf(new RemoteAccessError("refused", "closed (4403)"))).toMatchObject({
      what: expect.stringContaining("used already"),
      todo: "new-link",
    });
    expect(pairingProblemOf(new RemoteAccessError("bad-link", "no secret")).todo).toBe("new-link");
    expect(pairingProblemOf(new RemoteAccessError("unreachable", "4004")).todo).toBe("try-again");
    expect(pairingProblemOf(new RemoteAccessError("timeout", "late")).todo).toBe("try-again");
    expect(pairingProblemOf(new Error("boom")).what).toContain("boom");
  });
});
