/**
 * The turns a session ended itself (here: its server died) drop their late native events; it
 * remembers only the latest such turns, so that a long session does not grow with them.
 */
import { describe, expect, it } from "vitest";
import type { BackendContext, PromptRequest, SessionBackend } from "../backends/backend.js";
import { BACKEND_CAPABILITIES } from "../backends/capabilities.js";
import { canonical } from "../events/build.js";
import type { CanonicalEventOf, CanonicalType } from "../events/canonical.js";
import { turnIdFor } from "../events/turn-state.js";
import { Session } from "./session.js";

/** Admits and starts each input; the test emits the rest. */
class EmittingBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId = "ses_abandoned";
  #count = 0;

  constructor(readonly context: BackendContext) {}

  async ready(): Promise<void> {}
  check(): void {}
  async prompt(request: PromptRequest): Promise<{ inputId: string }> {
    const inputId = request.inputId ?? `in_${++this.#count}`;
    const turnId = turnIdFor(inputId);
    this.emit(turnId, "input.admitted", { inputId, text: request.text, delivery: "queue" });
    this.emit(turnId, "turn.started", { inputId });
    return { inputId };
  }
  async interrupt(): Promise<void> {}
  async switchModel(): Promise<void> {}
  async replyPermission(): Promise<void> {}
  async answerQuestion(): Promise<void> {}
  async rejectQuestion(): Promise<void> {}
  async abandonTurn(): Promise<void> {}
  async close(): Promise<void> {}

  emit<T extends CanonicalType>(turnId: string, type: T, data: CanonicalEventOf<T>["data"]) {
    const origin = {
      sessionId: this.context.sessionId,
      turnId,
      at: Date.now(),
      native: { backend: this.kind, type, id: `${turnId}/${type}/${Math.random()}` },
    };
    this.context.sink(canonical(origin, 0, type, data));
  }
}

const CRASH = { code: 1, signal: null, logTail: [], expected: false };

describe("Session, turns it ended itself", () => {
  it("drops late events of the latest such turns and forgets the oldest", async () => {
    let backend: EmittingBackend | undefined;
    const session = new Session(
      "ses_abandoned",
      (context) => {
        backend = new EmittingBackend(context);
        return backend;
      },
      { directory: "/tmp" },
    );
    if (backend === undefined) throw new Error("no backend made");
    const turnIds: string[] = [];
    for (let n = 0; n < 40; n++) {
      const turn = await session.send(`turn ${n}`, { delivery: "queue" });
      session.serverExited(CRASH);
      expect((await turn.done()).outcome).toBe("failed");
      turnIds.push(turn.id);
    }
    const late = (turnId: string, partId: string) =>
      backend?.emit(turnId, "text.ended", { partId, stepId: "step", text: "late" });
    late(turnIds[0] ?? "", "p_oldest");
    late(turnIds.at(-1) ?? "", "p_latest");
    const parts = session
      .transcript()
      .flatMap((event) => (event.type === "text.ended" ? [event.data.partId] : []));
    // The latest abandoned turn is still known (its late event dropped); the oldest of 40 is not.
    expect(parts).toEqual(["p_oldest"]);
    await session.close();
  });
});
