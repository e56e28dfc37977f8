import { describe, expect, it } from "vitest";
import { PERMISSION_PRESETS } from "./permission-presets.js";

describe("the permission presets", () => {
  it("ask before a web fetch unless everything is allowed (a fetch can carry what was read out)", () => {
    expect(PERMISSION_PRESETS.ask.webfetch).toBe("ask");
    expect(PERMISSION_PRESETS["read-only"].webfetch).toBe("ask");
    expect(PERMISSION_PRESETS["allow-all"].webfetch).toBe("allow");
  });
});
