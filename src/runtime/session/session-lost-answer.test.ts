/**
 * A prompt whose answer is lost (the connection broke off: a server killed mid-request, a
 * socket reset) may have been admitted. On a backend whose server admits an input id once,
 * the send tries again with the same id and returns the input's one turn; when every attempt
 * is lost it fails saying the outcome is unknown, naming the input. (server-sigkill finding 2:
 * a send threw while its turn ran and ended.)
 */
import { describe, expect, it } from "vitest";
import {
  type ServeShapedBackend,
  serveShapedSession,
} from "../../../test/support/serve-shaped-backend.js";
import type { PromptRequest } from "../../backends/backend.js";
import { ConnectionError, SendOutcomeUnknownError } from "../../errors.js";
import { turnIdFor } from "../../events/turn-state.js";
import { PROMPT_ATTEMPTS } from "./prompt-resend.js";

/**
 * Admits an id once, like OpenCode's `/api`; the answers of the first `lose` prompts are lost.
 * A lost prompt was admitted (`shown` on the stream at once, or `unseen` yet) or `not` admitted.
 */
function lossy(
  backend: ServeShapedBackend,
  lose: number,
  admitted: "shown" | "unseen" | "not" | "refused",
  serverAway = false,
) {
  const ids = new Set<string>();
  const sent: PromptRequest[] = [];
  let minted = 0;
  const prompt = backend.prompt.bind(backend);
  Object.assign(backend, {
    idempotentInputId: () => `msg_${++minted}`,
    prompt: async (request: PromptRequest) => {
      sent.push(request);
      const id = request.inputId ?? "no id";
      const lost = sent.length <= lose;
      if (lost && serverAway) {
        // A kill cut the request; the streams lose the server and reach the restarted one.
        backend.down(1);
        backend.up();
      }
      if (lost && admitted === "refused") throw refused();
      if (lost && admitted === "not") throw cut();
      const first = !ids.has(id);
      ids.add(id);
      // The stream shows the admission once (when the server made it, or later).
      if (first && (!lost || admitted === "shown")) await prompt(request);
      if (!first && admitted === "unseen" && !lost) await prompt(request);
      if (lost) throw cut();
      return { inputId: id };
    },
  });
  return { sent };
}

function cut(): ConnectionError {
  return new ConnectionError("http://127.0.0.1:1/prompt", "the response broke off");
}

function refused(): ConnectionError {
  const cause = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  return new ConnectionError("http://127.0.0.1:1/prompt", "could not reach the server", { cause });
}

describe("Session.send when the prompt's answer is lost", () => {
  it("returns the input's turn when the stream showed its admission", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, 1, "shown");
    const turn = await session.send("hi", { delivery: "queue" });
    expect(sent.map((request) => request.inputId)).toEqual(["msg_1"]);
    expect(turn.id).toBe(turnIdFor("msg_1"));
    await session.close();
  });

  it("sends it again with the same id: the input admitted before is its one turn", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, 1, "unseen");
    const turn = await session.send("hi", { delivery: "queue" });
    expect(sent.map((request) => request.inputId)).toEqual(["msg_1", "msg_1"]);
    expect(turn.id).toBe(turnIdFor("msg_1"));
    backend.emit(turn.id, "turn.ended", { outcome: "completed", text: "hello" });
    expect(await turn.done()).toMatchObject({ outcome: "completed" });
    const admissions = (await session.transcript()).filter((e) => e.type === "input.admitted");
    expect(admissions).toHaveLength(1);
    await session.close();
  });

  it("sends it again with the same id: an input not admitted is admitted then", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, 2, "not");
    const turn = await session.send("hi", { delivery: "queue" });
    expect(turn.id).toBe(turnIdFor("msg_1"));
    expect(sent.map((request) => request.inputId)).toEqual(["msg_1", "msg_1", "msg_1"]);
    await session.close();
  });

  it("fails saying the outcome is unknown, with the input's id, when every answer is lost", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, PROMPT_ATTEMPTS, "not");
    const error = await session.send("hi", { delivery: "queue" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendOutcomeUnknownError);
    expect(error).toMatchObject({ inputId: "msg_1", turnId: turnIdFor("msg_1") });
    expect((error as Error).message).toMatch(/whether the server admitted it is unknown/);
    expect(sent).toHaveLength(PROMPT_ATTEMPTS);
    await session.close();
  });

  it("fails with the refusal when every attempt was refused: the input was never sent", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, PROMPT_ATTEMPTS, "refused");
    const error = await session.send("hi", { delivery: "queue" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(SendOutcomeUnknownError);
    expect(sent).toHaveLength(PROMPT_ATTEMPTS);
    await session.close();
  });

  it("does not count the attempts a kill cut: it waits for the restarts, however many", async () => {
    const { session, backend } = serveShapedSession("ses_lost");
    const { sent } = lossy(backend, PROMPT_ATTEMPTS + 2, "not", true);
    const turn = await session.send("hi", { delivery: "queue" });
    expect(turn.id).toBe(turnIdFor("msg_1"));
    expect(sent).toHaveLength(PROMPT_ATTEMPTS + 3);
    await session.close();
  });
});
