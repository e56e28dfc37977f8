import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { chooseToken } from "./serve-token.js";

describe("ocb serve's token", () => {
  it("is generated on loopback, long and different each time", () => {
    const a = chooseToken("127.0.0.1", undefined);
    const b = chooseToken("::1", "");
    expect(a.generated).toBe(true);
    expect(a.value.length).toBeGreaterThanOrEqual(40);
    expect(b.value).not.toBe(a.value);
  });

  it("is OCB_TOKEN when set", () => {
    expect(chooseToken("127.0.0.1", "a-chosen-token-of-mine")).toEqual({
      value: "a-chosen-token-of-mine",
      generated: false,
    });
  });

  it("must be chosen (OCB_TOKEN) to listen beyond loopback", () => {
    expect(() => chooseToken("0.0.0.0", undefined)).toThrow(UsageError);
    expect(() => chooseToken("192.168.1.5", "")).toThrow(/set OCB_TOKEN/);
    expect(chooseToken("0.0.0.0", "a-chosen-token-of-mine").generated).toBe(false);
  });

  it("refuses a short OCB_TOKEN or one with spaces", () => {
    expect(() => chooseToken("127.0.0.1", "short")).toThrow(/at least 16/);
    expect(() => chooseToken("127.0.0.1", "has a space in the middle")).toThrow(UsageError);
  });
});
