/**
 * The processes of a scenario run alongside the others (the soak) are not another scenario's
 * leak: a full run counted the soak's bridge, model, opencode and keeper as upstream-cuts'
 * leftovers and killed them, which failed upstream-cuts, the soak and the secrets scan.
 */
import { expect, it } from "vitest";
import { markAlongside, withoutAlongside } from "../../bench/reliability/processes/alongside.js";

it("leaves out a process marked as run alongside and everything under it, however deep", () => {
  const root = 1_000_000;
  const seen = [
    { pid: root + 1, command: "node soak-child.ts", parent: root },
    { pid: root + 2, command: "opencode serve", parent: root + 1 },
    { pid: root + 3, command: "ocb-keeper", parent: root + 2 },
    { pid: root + 4, command: "opencode serve", parent: root },
    { pid: root + 5, command: "bash", parent: root + 4 },
  ];
  expect(withoutAlongside(seen)).toEqual(seen);
  markAlongside(root + 1);
  expect(withoutAlongside(seen).map((one) => one.pid)).toEqual([root + 4, root + 5]);
});
