/**
 * `DELETE /v1/sessions/:id/inputs/:inputId` over `app.inject()` (a stand-in bridge whose
 * sessions run on the in-process backend, which has no queue: the runtime holds queued
 * inputs): a held input is taken back (`input.cancelled`, shown in the conversation), and the
 * answers say what went wrong otherwise. `capabilities.cancelQueued` tells a UI when to offer it.
 */
import { describe, expect, it } from "vitest";
import { AUTH, sessionHarnesses } from "../../test/support/sidecar-harness.js";

const withSession = sessionHarnesses();

describe("removing a queued input through the sidecar", () => {
  it("takes back a held input; again → 409, unknown → 404, no token → 401", async () => {
    const { app, id, info, post } = await withSession();
    expect(info.capabilities?.cancelQueued).toBe(true);
    expect((await post("/inputs", { text: "one", delivery: "queue" })).statusCode).toBe(202);
    const queued = await post("/inputs", { text: "two", delivery: "queue" });
    const { inputId, turnId } = queued.json();
    expect(inputId).toEqual(expect.any(String));

    const url = `/v1/sessions/${id}/inputs/${inputId}`;
    expect((await app.inject({ method: "DELETE", url })).statusCode).toBe(401);
    const cancelled = await app.inject({ method: "DELETE", url, headers: AUTH });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toEqual({ ok: true });

    const conversation = (
      await app.inject({ url: `/v1/sessions/${id}/conversation`, headers: AUTH })
    ).json();
    expect(conversation.messages).toContainEqual(
      expect.objectContaining({ role: "user", text: "two", cancelled: "cancelled" }),
    );
    expect(conversation.messages).toContainEqual(
      expect.objectContaining({ role: "assistant", turnId, outcome: "interrupted" }),
    );

    const again = await app.inject({ method: "DELETE", url, headers: AUTH });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toMatch(/sent already|not queued/);
    const unknown = await app.inject({
      method: "DELETE",
      url: `/v1/sessions/${id}/inputs/in_nope`,
      headers: AUTH,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("not_found");
  });
});
