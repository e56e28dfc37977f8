/** The sidecar's in-memory state: tickets and idempotency keys expire and stay bounded. */
import { describe, expect, it } from "vitest";
import { ApiError } from "./errors.js";
import { Idempotency } from "./idempotency.js";
import { Tickets } from "./tickets.js";

describe("Tickets", () => {
  it("are single use and expire", () => {
    let now = 1_000;
    const tickets = new Tickets({ ttlMs: 30_000, max: 10, now: () => now });
    const a = tickets.issue();
    const b = tickets.issue();
    expect(a.expiresAt).toBe(31_000);
    expect(tickets.consume(a.ticket)).toBe(true);
    expect(tickets.consume(a.ticket)).toBe(false);
    now = 31_000;
    expect(tickets.consume(b.ticket)).toBe(false);
  });

  it("keep at most `max`, dropping the oldest", () => {
    const tickets = new Tickets({ ttlMs: 30_000, max: 2 });
    const [first, second, third] = [tickets.issue(), tickets.issue(), tickets.issue()];
    expect(tickets.size).toBe(2);
    expect(tickets.consume(first.ticket)).toBe(false);
    expect(tickets.consume(second.ticket)).toBe(true);
    expect(tickets.consume(third.ticket)).toBe(true);
  });
});

describe("Idempotency", () => {
  it("runs once per session and key, concurrent retries included", async () => {
    const keys = new Idempotency({ ttlMs: 1_000, max: 10 });
    let runs = 0;
    const run = async () => ({ n: ++runs });
    const [a, b] = await Promise.all([
      keys.run("s", "k", { x: 1 }, run),
      keys.run("s", "k", { x: 1 }, run),
    ]);
    expect(runs).toBe(1);
    expect(a).toEqual({ answer: { n: 1 }, replayed: false });
    expect(b).toEqual({ answer: { n: 1 }, replayed: true });
    expect((await keys.run("other", "k", { x: 1 }, run)).answer).toEqual({ n: 2 });
  });

  it("forgets a failed run, so the retry runs", async () => {
    const keys = new Idempotency({ ttlMs: 1_000, max: 10 });
    await expect(
      keys.run("s", "k", {}, async () => Promise.reject(new Error("upstream"))),
    ).rejects.toThrow("upstream");
    expect((await keys.run("s", "k", {}, async () => "ok")).answer).toBe("ok");
  });

  it("refuses the same key with another request", async () => {
    const keys = new Idempotency({ ttlMs: 1_000, max: 10 });
    await keys.run("s", "k", { text: "a" }, async () => 1);
    await expect(keys.run("s", "k", { text: "b" }, async () => 2)).rejects.toBeInstanceOf(ApiError);
  });

  it("forgets keys after the ttl and past the bound", async () => {
    // A clock that starts at 0 would not do: lru-cache takes a start of 0 for none.
    let now = 1_000;
    const keys = new Idempotency({ ttlMs: 100, max: 2, now: () => now });
    await keys.run("s", "a", {}, async () => 1);
    now = 1_100;
    expect((await keys.run("s", "a", {}, async () => 2)).replayed).toBe(false);
    await keys.run("s", "b", {}, async () => 3);
    await keys.run("s", "c", {}, async () => 4);
    expect(keys.size).toBe(2);
    expect((await keys.run("s", "a", {}, async () => 5)).answer).toBe(5);
  });

  it("drops the oldest key past the bound, even one just replayed", async () => {
    const keys = new Idempotency({ ttlMs: 1_000, max: 2 });
    await keys.run("s", "a", {}, async () => 1);
    await keys.run("s", "b", {}, async () => 2);
    expect((await keys.run("s", "a", {}, async () => 3)).replayed).toBe(true);
    await keys.run("s", "c", {}, async () => 4);
    expect((await keys.run("s", "b", {}, async () => 5)).replayed).toBe(true);
    expect((await keys.run("s", "a", {}, async () => 6)).replayed).toBe(false);
  });
});
