import { describe, expect, it } from "vitest";
import { whatWasLeft } from "./commands/serve.js";

describe("what `ocb serve` says it left running when stopped", () => {
  it("nothing, when no turn ran", () => {
    expect(whatWasLeft({ turns: [] })).toBe("nothing left running");
  });

  it("the turns, how long the server is kept, and how to take them up", () => {
    const turns = [
      { sessionId: "ses_1", turnId: "turn_1" },
      { sessionId: "ses_2", turnId: "turn_2" },
    ];
    const server = { pid: 42, url: "http://127.0.0.1:4096", keptForMs: 300_000 };
    expect(whatWasLeft({ turns, server })).toBe(
      "2 running turns left for adoption; the OpenCode server is kept for 300 s: " +
        "run `ocb serve` again with the same --store, --dir and --config to take them up",
    );
  });

  it("why turns were ended instead (the --demo model runs in the sidecar)", () => {
    expect(whatWasLeft({ turns: [], notLeft: "the model server runs in this process" })).toBe(
      "running turns ended failed (session-closed): the model server runs in this process",
    );
  });
});
