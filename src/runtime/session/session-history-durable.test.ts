/**
 * An undo or a redo answers only once its event is kept: a client told "done" must find
 * `session.reverted` / `session.unreverted` in the session's events even if the process dies
 * the next moment (the reliability suite's controls scenario lost an undo's event to a SIGKILL
 * right after the sidecar's 200). The store's appends are held here until released.
 */
import { describe, expect, it } from "vitest";
import { InProcessBackend } from "../../../test/support/in-process-backend.js";
import type { BackendContext } from "../../backends/backend.js";
import { backendEvent } from "../../backends/backend-event.js";
import { BACKEND_CAPABILITIES } from "../../backends/capabilities.js";
import { IN_MEMORY, SqliteStore } from "../../store/sqlite-store.js";
import type { Store } from "../../store/store.js";
import { Session } from "./session.js";

class HistoryBackend extends InProcessBackend {
  override readonly capabilities = { ...BACKEND_CAPABILITIES.subprocess, revert: true };
  readonly #sessionId: string;
  readonly #sink: BackendContext["sink"];

  constructor(context: BackendContext) {
    super(context);
    this.#sessionId = context.sessionId;
    this.#sink = context.sink;
  }

  async revert(inputId: string): Promise<void> {
    this.#sink(
      backendEvent(this.#sessionId, this.kind, "revert", "session.reverted", {
        inputId,
        files: [],
      }),
    );
  }

  async unrevert(): Promise<void> {
    this.#sink(
      backendEvent(this.#sessionId, this.kind, "unrevert", "session.unreverted", {
        inputId: "msg_1",
      }),
    );
  }
}

/** A SQLite store whose appends wait until `release()`. */
function heldStore(): { store: Store; inner: SqliteStore; release(): void } {
  const inner = SqliteStore.open(IN_MEMORY);
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const store = new Proxy(inner, {
    get: (target, key) => {
      if (key === "append") {
        return async (...args: Parameters<Store["append"]>) => {
          await gate;
          return target.append(...args);
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, inner, release };
}

const stillPending = async (promise: Promise<unknown>) =>
  (await Promise.race([promise.then(() => "settled"), new Promise((r) => setTimeout(r, 50))])) ===
  undefined;

describe("undo and redo answer once their event is kept", () => {
  it.each([
    ["revert", "session.reverted"],
    ["unrevert", "session.unreverted"],
  ] as const)("%s resolves after %s is in the store", async (call, type) => {
    const held = heldStore();
    const session = new Session("ses_durable_history", (context) => new HistoryBackend(context), {
      directory: "/tmp",
      store: held.store,
    });
    const answered = call === "revert" ? session.revert("msg_1") : session.unrevert();
    expect(await stillPending(answered)).toBe(true);
    held.release();
    await answered;
    const kept = await held.inner.read("ses_durable_history", { after: 0 });
    expect(kept.map((event) => event.type)).toContain(type);
    await session.close();
    held.inner.close();
  });
});
