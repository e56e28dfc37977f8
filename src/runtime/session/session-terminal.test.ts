/**
 * `Session.openTerminal` on stand-in backends: refused where the backend has no terminal, and a
 * session with a terminal open is not idle (an idle release would close the terminal under its
 * user) until the terminal ends.
 */
import { describe, expect, it } from "vitest";
import { inProcessSession } from "../../../test/support/in-process-backend.js";
import {
  ServeShapedBackend,
  serveShapedSession,
} from "../../../test/support/serve-shaped-backend.js";
import type { Terminal, TerminalEnd } from "../../backends/terminal.js";
import { UsageError } from "../../errors.js";

function standInTerminal(): Terminal & { end(): void } {
  let end!: (value: TerminalEnd) => void;
  const ended = new Promise<TerminalEnd>((resolve) => {
    end = resolve;
  });
  return {
    id: "pty_standin",
    ended,
    output: async function* () {},
    write() {},
    async resize() {},
    async close() {
      end({ reason: "closed", message: "closed" });
    },
    end: () => end({ reason: "exited", message: "the shell exited" }),
  };
}

describe("Session.openTerminal", () => {
  it("is refused where the backend has no terminal", async () => {
    const { session } = inProcessSession("ses_no_terminal");
    const refused = await session.openTerminal().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe("the subprocess backend cannot open a terminal");
  });

  it("keeps the session from counting as idle while a terminal is open", async () => {
    const terminal = standInTerminal();
    const { session } = serveShapedSession(
      "ses_terminal",
      {},
      (context) =>
        new (class extends ServeShapedBackend {
          async openTerminal(): Promise<Terminal> {
            return terminal;
          }
        })(context),
    );
    expect(session.idleSince).toBeDefined();
    expect(await session.openTerminal()).toBe(terminal);
    expect(session.idleSince).toBeUndefined();
    terminal.end();
    await terminal.ended;
    await Promise.resolve();
    expect(session.idleSince).toBeDefined();
  });
});
