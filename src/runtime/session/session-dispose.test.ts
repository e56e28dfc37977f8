/**
 * `await using` on a session closes it at the end of the block, and `switchModel` hands its
 * signal to the backend (which passes it to the HTTP call).
 */
import { describe, expect, it } from "vitest";
import type { BackendContext, PromptRequest, SessionBackend } from "../../backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../backends/capabilities.js";
import { AbortError } from "../../errors.js";
import { Session } from "./session.js";

/** A backend that records what it was asked to do. */
class RecordingBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId = "ses_rec";
  closed = false;
  switchSignals: (AbortSignal | undefined)[] = [];

  constructor(readonly context: BackendContext) {}

  async ready(): Promise<void> {}
  check(): void {}
  async prompt(_request: PromptRequest): Promise<{ inputId: string }> {
    return { inputId: "in_1" };
  }
  async interrupt(): Promise<void> {}
  async switchModel(_model: unknown, signal?: AbortSignal): Promise<void> {
    this.switchSignals.push(signal);
  }
  async replyPermission(): Promise<void> {}
  async answerQuestion(): Promise<void> {}
  async rejectQuestion(): Promise<void> {}
  async abandonTurn(): Promise<void> {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

function open(): { session: Session; backend: RecordingBackend } {
  let backend: RecordingBackend | undefined;
  const session = new Session(
    "ses_rec",
    (context) => {
      backend = new RecordingBackend(context);
      return backend;
    },
    { directory: "/tmp" },
  );
  if (backend === undefined) throw new Error("no backend made");
  return { session, backend };
}

describe("Session lifetime and signals", () => {
  it("`await using` closes the session at the end of the block: backend closed, stream ended", async () => {
    const { session, backend } = open();
    const reading = (async () => {
      const seen: string[] = [];
      for await (const event of session.events()) seen.push(event.type);
      return seen;
    })();
    {
      await using _disposed = session;
    }
    expect(backend.closed).toBe(true);
    await expect(reading).resolves.toBeInstanceOf(Array);
  });

  it("switchModel passes its signal down, and an aborted one rejects before calling", async () => {
    const { session, backend } = open();
    const controller = new AbortController();
    const model = { providerID: "demo", modelID: "demo-2" };
    await session.switchModel(model, { signal: controller.signal });
    expect(backend.switchSignals).toEqual([controller.signal]);
    controller.abort();
    await expect(session.switchModel(model, { signal: controller.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(backend.switchSignals).toHaveLength(1);
    await session.close();
  });
});
