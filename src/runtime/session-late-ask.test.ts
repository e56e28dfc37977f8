/**
 * An ask that reaches the session after its turn ended (the serve backend holds an ask until
 * its tool call shows, and computes a permission's diff first, while the run may be stopped
 * meanwhile) has nobody left to wait on it: it must not stay pending and keep the session
 * busy for good.
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
  readonly upstreamId = "ses_late";
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
      native: { backend: this.kind, type, id: `${turnId}/${type}` },
    };
    this.context.sink(canonical(origin, 0, type, data));
  }
}

describe("Session, an ask after its turn's end", () => {
  it("is not kept pending, and the session goes idle", async () => {
    let backend: EmittingBackend | undefined;
    const session = new Session(
      "ses_late",
      (context) => {
        backend = new EmittingBackend(context);
        return backend;
      },
      { directory: "/tmp" },
    );
    if (backend === undefined) throw new Error("no backend made");
    const turn = await session.send("hi", { delivery: "queue" });
    backend.emit(turn.id, "turn.ended", { outcome: "interrupted", text: "" });
    expect((await turn.done()).outcome).toBe("interrupted");
    backend.emit(turn.id, "permission.asked", {
      requestId: "per_late",
      permission: "edit",
      patterns: ["hello.txt"],
      callId: "call_1",
    });
    expect(session.pendingAsks).toEqual([]);
    expect(session.idleSince).toBeDefined();
    // Still in the transcript: what happened is kept, only nobody waits on it.
    expect(session.transcript().map((event) => event.type)).toContain("permission.asked");
    await session.close();
  });

  it("an ask of the running turn is still kept pending", async () => {
    let backend: EmittingBackend | undefined;
    const session = new Session(
      "ses_late",
      (context) => {
        backend = new EmittingBackend(context);
        return backend;
      },
      { directory: "/tmp" },
    );
    if (backend === undefined) throw new Error("no backend made");
    const turn = await session.send("hi", { delivery: "queue" });
    backend.emit(turn.id, "permission.asked", {
      requestId: "per_now",
      permission: "edit",
      patterns: ["hello.txt"],
      callId: "call_1",
    });
    expect(session.pendingAsks.map((ask) => ask.requestId)).toEqual(["per_now"]);
    expect(session.idleSince).toBeUndefined();
    await session.close();
  });
});
