/**
 * The bridge of the bridge-sigkill scenario, in a process of its own so that it can be
 * SIGKILLed: a `Bridge` on the scenario's SQLite store with a managed `opencode serve` (the
 * scripted model as its provider). Its role (see `ChildSetup`) comes in its environment; it
 * reports each step over its IPC channel (`ChildMessage`) and writes the bridge's log to a file.
 *
 * - first: creates the session, sends a turn, waits to be killed.
 * - next: opens the session (adopting the turn its killed predecessor sent), waits for that
 *   turn's end, sends the next turn, waits to be killed.
 * - last: the same adoption, then one turn nobody interrupts (the reference), then closes the
 *   bridge, which stops the server it took up.
 */
import { appendFileSync } from "node:fs";
import { Bridge } from "../../../src/runtime/bridge/bridge.js";
import type { Session } from "../../../src/runtime/session/session.js";
import { lineLogger } from "../../../src/sidecar/log-lines.js";
import { describeError } from "../../../src/util/describe-error.js";
import { ChildMessage, ChildSetup, PROMPT, SETUP_ENV } from "./messages.js";

/** Bound on an adopted turn's end: it has seconds of reply left at most. */
const TURN_BOUND_MS = 90_000;

function post(message: ChildMessage): void {
  process.send?.(ChildMessage.parse(message));
}

/** Waits for the end of `turnId` on the session's stream, unless the transcript has it already. */
async function endOf(session: Session, turnId: string): Promise<void> {
  const ended = (event: { type: string; turnId?: string | undefined }) =>
    event.type === "turn.ended" && event.turnId === turnId;
  const signal = AbortSignal.timeout(TURN_BOUND_MS);
  for await (const event of session.events({ signal })) {
    if (!ended(event)) continue;
    if (event.type === "turn.ended") {
      post({ kind: "ended", turnId, outcome: event.data.outcome, text: event.data.text ?? "" });
    }
    return;
  }
}

async function main(setup: ChildSetup): Promise<void> {
  const bridge = await Bridge.start({
    directory: setup.directory,
    store: setup.store,
    config: setup.config,
    model: { providerID: "demo", modelID: "demo-1" },
    server: { orphanTimeoutMs: setup.orphanTimeoutMs },
    logger: lineLogger("text", (line) => appendFileSync(setup.log, line)),
  });
  // The scenario gone (killed outright): nobody will adopt anything, so stop as a bridge closes.
  let closing: Promise<unknown> | undefined;
  process.once("disconnect", () => {
    closing ??= bridge.close().finally(() => process.exit(0));
  });
  post({
    kind: "started",
    serverPid: bridge.server.pid ?? 0,
    password: bridge.server.password ?? "",
  });
  let session: Session;
  if (setup.role === "first" || setup.sessionId === undefined) {
    session = await bridge.createSession({ title: "bridge-sigkill" });
    post({ kind: "opened", sessionId: session.id });
  } else {
    session = await bridge.openSession(setup.sessionId);
    const adopted = session.runningTurn;
    post({
      kind: "opened",
      sessionId: session.id,
      ...(adopted === undefined ? {} : { adoptedTurnId: adopted.id }),
    });
    if (adopted !== undefined) {
      const result = await adopted.done();
      post({ kind: "ended", turnId: adopted.id, outcome: result.outcome, text: result.text });
    } else if (setup.expectTurnId !== undefined) {
      // Not adopted as running: its end (if it comes) still shows on the stream.
      await endOf(session, setup.expectTurnId);
    }
  }
  const turn = await session.send(PROMPT, { delivery: "queue" });
  post({ kind: "sent", turnId: turn.id });
  if (setup.role !== "last") {
    setInterval(() => {}, 60_000); // wait for the kill
    return;
  }
  const result = await turn.done();
  post({ kind: "ended", turnId: turn.id, outcome: result.outcome, text: result.text });
  closing ??= bridge.close();
  await closing;
  post({ kind: "closed" });
  process.disconnect?.();
}

function parsedJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

const setup = ChildSetup.safeParse(parsedJson(process.env[SETUP_ENV]));
if (!setup.success) {
  process.stderr.write(`bridge-sigkill child: no valid ${SETUP_ENV} in the environment\n`);
  process.exit(2);
}
main(setup.data).catch((error: unknown) => {
  post({ kind: "failed", message: describeError(error) });
  process.exitCode = 1;
  process.disconnect?.();
});
