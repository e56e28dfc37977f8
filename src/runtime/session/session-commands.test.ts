/**
 * `Session.runCommand` and `Session.compact` on an in-process backend that can do both: a
 * command goes the way of any input, a compaction waits for a free session and holds inputs
 * back until it is done. (On the real servers: test/e2e/sidecar-commands.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { InProcessBackend } from "../../../test/support/in-process-backend.js";
import type { BackendContext } from "../../backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../backends/capabilities.js";
import { UsageError } from "../../errors.js";
import { Session } from "./session.js";

class CommandBackend extends InProcessBackend {
  override readonly capabilities = {
    ...BACKEND_CAPABILITIES.subprocess,
    commands: true,
    compact: true,
  };
  /** Resolves the compaction under way. */
  finishCompaction: () => void = () => {};
  compactions = 0;

  constructor(context: BackendContext) {
    super(context);
  }

  async commandPrompt(name: string, args: string): Promise<string> {
    if (name !== "greet") throw new UsageError(`unknown command ${JSON.stringify(name)}`);
    return `Greet ${args}`;
  }

  compact(): Promise<void> {
    this.compactions++;
    return new Promise((resolve) => {
      this.finishCompaction = resolve;
    });
  }
}

function commandSession(): { session: Session; backend: CommandBackend } {
  let backend: CommandBackend | undefined;
  const session = new Session(
    "ses_commands",
    (context) => {
      backend = new CommandBackend(context);
      return backend;
    },
    { directory: "/tmp" },
  );
  if (backend === undefined) throw new Error("no backend made");
  return { session, backend };
}

describe("Session.runCommand", () => {
  it("sends the command's prompt as an input: its turn, admitted with that text", async () => {
    const { session, backend } = commandSession();
    const { turn, prompt } = await session.runCommand("greet", "the world", { delivery: "queue" });
    expect(prompt).toBe("Greet the world");
    expect(backend.prompts.map((request) => request.text)).toEqual(["Greet the world"]);
    const admitted = (await session.transcript()).find((e) => e.type === "input.admitted");
    expect(admitted?.turnId).toBe(turn.id);
    expect(admitted?.data).toMatchObject({ text: "Greet the world" });
    await expect(session.runCommand("nope", "", { delivery: "queue" })).rejects.toThrow(
      /unknown command "nope"/,
    );
    expect(backend.prompts).toHaveLength(1);
    await session.close();
  });
});

describe("Session.compact", () => {
  it("is refused while a turn runs; an input sent during a compaction waits for its end", async () => {
    const { session, backend } = commandSession();
    await session.send("first", { delivery: "queue" });
    await expect(session.compact()).rejects.toThrow(/is busy .*compact once it has ended/);
    expect(backend.compactions).toBe(0);
    backend.end();
    await session.settled();

    const compacting = session.compact();
    const sending = session.send("after", { delivery: "queue" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(backend.compactions).toBe(1);
    expect(backend.prompts.map((request) => request.text)).toEqual(["first"]);
    await expect(session.compact()).rejects.toThrow(/is busy/);

    backend.finishCompaction();
    await compacting;
    await sending;
    expect(backend.prompts.map((request) => request.text)).toEqual(["first", "after"]);
    await session.close();
  });
});
