/**
 * `Session.detach()` (what `Bridge.close({ leaveRunning: true })` does to each session): it
 * stops following as a crash would, so that a successor adopts the running turn; unlike
 * `close()`, which ends it `failed`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { inProcessSession } from "../../../test/support/in-process-backend.js";
import { IN_MEMORY, SqliteStore } from "../../store/sqlite-store.js";
import type { Store } from "../../store/store.js";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function storedSession() {
  const store = SqliteStore.open(IN_MEMORY);
  stores.push(store);
  const now = Date.now();
  // SQLite writes it before the promise is even returned.
  void store.saveSession({
    id: "ocb_detach",
    backend: "subprocess",
    directory: "/tmp",
    state: "open",
    createdAt: now,
    updatedAt: now,
  });
  return { store, ...inProcessSession("ocb_detach", { store }) };
}

describe("Session.detach", () => {
  it("leaves the running turn unended in the store and asks nothing upstream", async () => {
    const { store, session, backend } = storedSession();
    const running = await session.send("one", { delivery: "queue" });
    backend.step(3);
    await session.detach();
    const kept = await store.read("ocb_detach");
    expect(kept.filter((event) => event.type === "turn.started")).toHaveLength(1);
    expect(kept.some((event) => event.type === "turn.ended")).toBe(false);
    expect(backend.interrupts).toBe(0);
    expect(running.state).toBe("running");
    expect((await store.session("ocb_detach"))?.state).toBe("open");
    await expect(session.send("two", { delivery: "queue" })).rejects.toThrow(/closed/);
  });

  it("ends inputs it held back (never sent, so no successor knows them) failed", async () => {
    const { store, session } = storedSession();
    const running = await session.send("one", { delivery: "queue" });
    const held = await session.send("two", { delivery: "queue" });
    await session.detach();
    expect(await held.done()).toMatchObject({ outcome: "failed", reason: "session-closed" });
    const ends = (await store.read("ocb_detach")).filter((event) => event.type === "turn.ended");
    expect(ends.map((event) => event.turnId)).toEqual([held.id]);
    expect(running.state).toBe("running");
  });

  it("after close(), detach() does nothing more", async () => {
    const { store, session } = storedSession();
    await session.send("one", { delivery: "queue" });
    await session.close();
    await session.detach();
    const ends = (await store.read("ocb_detach")).filter((event) => event.type === "turn.ended");
    expect(ends).toHaveLength(1);
  });
});
