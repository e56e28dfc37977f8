import { describe, expect, it } from "vitest";
import { basicAuthHeader } from "./basic-auth.js";

describe("basicAuthHeader", () => {
  it("encodes user:password in base64", () => {
    expect(basicAuthHeader("opencode", "pw")).toBe("Basic b3BlbmNvZGU6cHc=");
  });
});
