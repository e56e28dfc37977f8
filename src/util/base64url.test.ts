import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromBase64url, toBase64url } from "./base64url.js";

describe("base64url", () => {
  it("agrees with Node's for every length up to 70", () => {
    for (let length = 0; length <= 70; length++) {
      const bytes = new Uint8Array(randomBytes(length));
      const text = toBase64url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64url"));
      expect(fromBase64url(text)).toEqual(bytes);
    }
  });

  it("refuses what is not base64url", () => {
    for (const text of ["a+b", "ab/c", "abc=", "a", "é"])
      expect(fromBase64url(text)).toBeUndefined();
  });
});
