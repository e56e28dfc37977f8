import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AbortError } from "../errors.js";
import type { Logger } from "../util/logger.js";
import { LIVE_READY_TIMEOUT_MS, LiveReadiness } from "./live-readiness.js";

function recordingLogger() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }),
    error: () => {},
  };
  return { logger, warnings };
}

describe("LiveReadiness", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("goes ahead at once once the stream has connected, with no timer left", async () => {
    const { logger, warnings } = recordingLogger();
    const live = new LiveReadiness();
    live.connected();
    await live.wait(undefined, { sessionId: "ses_1", logger });
    expect(warnings).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("holds a prompt until the stream connects", async () => {
    const { logger, warnings } = recordingLogger();
    const live = new LiveReadiness();
    let ready = false;
    const waiting = live.wait(undefined, { sessionId: "ses_1", logger }).then(() => {
      ready = true;
    });
    await vi.advanceTimersByTimeAsync(LIVE_READY_TIMEOUT_MS - 1);
    expect(ready).toBe(false);
    live.connected();
    await waiting;
    expect(ready).toBe(true);
    expect(warnings).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("past its bound goes ahead anyway and warns, naming the session", async () => {
    const { logger, warnings } = recordingLogger();
    const live = new LiveReadiness();
    const waiting = live.wait(undefined, { sessionId: "ses_1", logger }, 1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    await waiting;
    expect(warnings).toEqual([
      { message: expect.stringContaining("not connected"), fields: { sessionId: "ses_1" } },
    ]);
  });

  it("every waiting prompt is let go by one connection, leaving no listener on their signals", async () => {
    const { logger } = recordingLogger();
    const live = new LiveReadiness();
    const controllers = [1, 2, 3].map(() => new AbortController());
    const waits = controllers.map((controller) =>
      live.wait(controller.signal, { sessionId: "ses_1", logger }),
    );
    live.connected();
    await Promise.all(waits);
    expect(vi.getTimerCount()).toBe(0);
    for (const { signal } of controllers) expect(getEventListeners(signal, "abort")).toEqual([]);
  });

  it("stays ready across reconnects", async () => {
    const { logger, warnings } = recordingLogger();
    const live = new LiveReadiness();
    live.connected();
    live.connected();
    await live.wait(undefined, { sessionId: "ses_1", logger });
    expect(warnings).toEqual([]);
  });

  it("rejects with AbortError when the caller aborts, without a warning", async () => {
    const { logger, warnings } = recordingLogger();
    const live = new LiveReadiness();
    const controller = new AbortController();
    const waiting = live.wait(controller.signal, { sessionId: "ses_1", logger });
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);
    expect(warnings).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("asks a stream that is down to try again now when a prompt waits for it, once until it reports", async () => {
    const { logger } = recordingLogger();
    let retries = 0;
    const live = new LiveReadiness(() => retries++);
    const context = { sessionId: "ses_1", logger };
    // Connecting for the first time: nothing failed, nothing to hurry.
    live.wait(undefined, context).catch(() => {});
    expect(retries).toBe(0);
    live.connected();
    live.disconnected();
    const first = live.wait(undefined, context);
    const second = live.connectedWithin(1_000);
    expect(retries).toBe(1);
    live.disconnected(); // the retried connection failed too: the next prompt asks again
    const third = live.wait(undefined, context);
    expect(retries).toBe(2);
    live.connected();
    await Promise.all([first, second, third]);
    await live.wait(undefined, context);
    expect(retries).toBe(2);
  });
});
