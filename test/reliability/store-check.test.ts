import { describe, expect, it } from "vitest";
import { readStore } from "../../bench/reliability/sidecar/store-check.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { canonicalEvent } from "../support/canonical-event.js";

/** A turn's event in session `sessionId`. */
const event = (sessionId: string, ...args: Parameters<typeof canonicalEvent>) => ({
  ...canonicalEvent(...args),
  sessionId,
});

describe("the sidecar-clients scenario's view of the store", () => {
  it("read on from a previous view, equals a whole read", async () => {
    const store = SqliteStore.open(":memory:");
    try {
      const admitted = [{ turnId: "turn_a" }, { turnId: "turn_b" }] as never[];
      await store.append("ses_1", [
        event("ses_1", "turn_a", "turn.started", {}),
        event("ses_1", "turn_a", "turn.ended", { outcome: "completed", text: "a" }),
        event("ses_1", "turn_b", "turn.started", {}),
      ]);
      const first = await readStore(store, ["ses_1", "ses_2"], admitted);
      expect(first.endsPerTurn).toEqual(
        new Map([
          ["turn_a", 1],
          ["turn_b", 0],
        ]),
      );

      await store.append("ses_1", [
        event("ses_1", "turn_b", "turn.ended", { outcome: "completed", text: "b" }),
      ]);
      await store.append("ses_2", [event("ses_2", "turn_c", "turn.started", {})]);
      const onwards = await readStore(store, ["ses_1", "ses_2"], admitted, first);
      expect(onwards).toEqual(await readStore(store, ["ses_1", "ses_2"], admitted));
      expect(onwards.endsPerTurn).toEqual(
        new Map([
          ["turn_a", 1],
          ["turn_b", 1],
          ["turn_c", 0],
        ]),
      );
      expect(onwards.lists.get("ses_1")?.map((mark) => mark.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      await store.close();
    }
  });
});
