/**
 * `SessionInfo.lastActivityAt`: when a session's last durable event happened, for a session
 * list's "last activity" (its record's `updatedAt` changes only when it is created, opened or
 * renamed). Open and kept sessions alike; none before the first event.
 */
import { describe, expect, it } from "vitest";
import { AUTH, sessionHarnesses } from "../../test/support/sidecar-harness.js";

const withSession = sessionHarnesses();

describe("a session's last activity", () => {
  it("is its last durable event's time, open or kept", async () => {
    const { app, id, post, backend } = await withSession();
    const info = async () =>
      (await app.inject({ url: "/v1/sessions", headers: AUTH })).json().sessions[0];
    const created = await info();
    const lastAt = async () => {
      const lines = (await app.inject({ url: `/v1/sessions/${id}/transcript`, headers: AUTH })).body
        .trim()
        .split("\n");
      return JSON.parse(lines.at(-1) ?? "{}").at;
    };
    expect(created.lastActivityAt).toBe(created.lastSeq === 0 ? undefined : await lastAt());

    await post("/inputs", { text: "one", delivery: "queue" });
    backend.step(2);
    backend.end("completed");
    const open = await info();
    expect(open.open).toBe(true);
    expect(open.lastActivityAt).toBe(await lastAt());
    expect(open.lastActivityAt).toEqual(expect.any(Number));

    await app.inject({ method: "POST", url: `/v1/sessions/${id}/release`, headers: AUTH });
    const kept = await info();
    expect(kept.open).toBe(false);
    expect(kept.lastActivityAt).toBe(open.lastActivityAt);
  });
});
