import { describe, expect, it } from "vitest";
import { leavingRefusal } from "./leave-running.js";

describe("leavingRefusal: when close({ leaveRunning }) cannot leave running turns", () => {
  it("can on the serve backends without a model server of its own", () => {
    expect(leavingRefusal("serve", false)).toBeUndefined();
    expect(leavingRefusal("serve-legacy", false)).toBeUndefined();
  });

  it("cannot with a model server (it runs in this process) nor on subprocess, and says why", () => {
    expect(leavingRefusal("serve", true)).toMatch(/model server runs in this process/);
    expect(leavingRefusal("subprocess", false)).toMatch(/processes of this one/);
  });
});
