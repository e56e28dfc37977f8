/**
 * Closing a session while a send is still waiting (for the server and model, for the live
 * stream, for the input's admission): `close()` waits for the send under way, so those waits
 * must end when it is called, not run out their bounds (up to 30 s for the model catalog).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BackendContext, PromptRequest, SessionBackend } from "../../backends/backend.js";
import { BACKEND_CAPABILITIES } from "../../backends/capabilities.js";
import { AbortError, UsageError } from "../../errors.js";
import { sleep } from "../../util/abort.js";
import { Session, type SessionOptions } from "./session.js";

/** How long the fake waits last unless aborted: far past anything the test advances. */
const LONG_WAIT_MS = 60_000;

/** A backend whose live stream takes long to come (optionally) and that never admits inputs. */
class SlowBackend implements SessionBackend {
  readonly kind = "serve" as const;
  readonly capabilities = BACKEND_CAPABILITIES.serve;
  readonly upstreamId = "ses_slow";
  prompts = 0;

  constructor(
    readonly context: BackendContext,
    readonly slowReady: boolean,
  ) {}

  async ready(signal?: AbortSignal): Promise<void> {
    // Like LiveReadiness: bounded, abortable.
    if (this.slowReady) await sleep(LONG_WAIT_MS, signal, "waiting for the live stream");
  }
  check(): void {}
  async prompt(_request: PromptRequest): Promise<{ inputId: string }> {
    this.prompts++;
    return { inputId: `in_${this.prompts}` }; // its admission never shows
  }
  async interrupt(): Promise<void> {}
  async switchModel(): Promise<void> {}
  async replyPermission(): Promise<void> {}
  async answerQuestion(): Promise<void> {}
  async rejectQuestion(): Promise<void> {}
  async abandonTurn(): Promise<void> {}
  async close(): Promise<void> {}
}

function open(slowReady: boolean, options: Partial<SessionOptions> = {}) {
  let backend: SlowBackend | undefined;
  const session = new Session(
    "ses_slow",
    (context) => {
      backend = new SlowBackend(context, slowReady);
      return backend;
    },
    { directory: "/tmp", ...options },
  );
  if (backend === undefined) throw new Error("no backend made");
  return { session, backend };
}

/** Whether `promise` settled once the timers have run for `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("Session.close while a send waits", () => {
  it("ends a send's wait for the live stream; the send is refused as closed", async () => {
    const { session, backend } = open(true);
    const sent = session.send("hi", { delivery: "queue" });
    const outcome = sent.then(
      () => "sent",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(await settledWithin(session.close(), 10)).toBe(true);
    const error = await outcome;
    expect(error).toBeInstanceOf(UsageError);
    expect(error).not.toBeInstanceOf(AbortError);
    expect(String(error)).toMatch(/session ses_slow is closed/);
    expect(backend.prompts).toBe(0);
  });

  it("ends a beforeSend wait (the model catalog), which hears of it on its signal", async () => {
    let heard: unknown;
    const { session } = open(false, {
      beforeSend: async ({ signal }) => {
        try {
          await sleep(LONG_WAIT_MS, signal, "waiting for the model");
        } catch (error) {
          heard = error;
          throw error;
        }
      },
    });
    const sent = session.send("hi", { delivery: "queue" }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settledWithin(session.close(), 10)).toBe(true);
    expect(heard).toBeInstanceOf(AbortError);
    expect(await sent).toBeInstanceOf(UsageError);
  });

  it("ends a wait for the admission: the input's turn ends failed (session-closed)", async () => {
    const { session, backend } = open(false);
    const sent = session.send("hi", { delivery: "queue" });
    await vi.advanceTimersByTimeAsync(10);
    expect(backend.prompts).toBe(1);
    expect(await settledWithin(session.close(), 10)).toBe(true);
    const turn = await sent;
    expect(await turn.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
  });

  it("refuses a send that was queued behind the one under way", async () => {
    const { session, backend } = open(true);
    const first = session.send("one", { delivery: "queue" }).catch((error: unknown) => error);
    const second = session.send("two", { delivery: "queue" }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settledWithin(session.close(), 10)).toBe(true);
    expect(await first).toBeInstanceOf(UsageError);
    expect(await second).toBeInstanceOf(UsageError);
    expect(backend.prompts).toBe(0);
  });
});
