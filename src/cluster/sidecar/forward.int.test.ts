/**
 * Commands across sidecars (a real Postgres, sidecars listening on loopback in this process,
 * sessions on the in-process backend): a command sent to a sidecar that does not drive the
 * session is forwarded to the driver and answered with the driver's answer; a forwarded
 * command is never forwarded again; a driver that no longer drives, or cannot be reached, is
 * looked up again until the lease's holder answers, or this sidecar takes the session itself.
 */
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import {
  type ClusterSidecar,
  createClusterSession,
  sendTo,
  useClusterSidecars,
} from "../../../test/support/cluster-sidecars.js";
import { SendInputResultSchema } from "../../wire/http.js";

const cluster = useClusterSidecars();

/** Two sidecars of the cluster of `url`, listening. */
async function twoListening(url: string): Promise<[ClusterSidecar, ClusterSidecar]> {
  return [
    await cluster.sidecar(url, "a", { listen: true }),
    await cluster.sidecar(url, "b", { listen: true }),
  ];
}

function backendOf(on: ClusterSidecar, id: string) {
  const backend = on.backends.get(id);
  if (backend === undefined) throw new Error(`${on.holderId} has no backend for ${id}`);
  return backend;
}

function post(on: ClusterSidecar, url: string, payload: object = {}) {
  return on.app.inject({ method: "POST", url, headers: on.headers.json, payload });
}

/** The requests `on` answered on `route`, as status codes. */
function answered(on: ClusterSidecar, route: string): unknown[] {
  return on.logger.entries
    .filter((entry) => entry.message === "request" && entry.fields?.route === route)
    .map((entry) => entry.fields?.status);
}

async function sql(url: string, text: string, values: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe("commands across sidecars", () => {
  it("forwards a send, a permission reply and an interrupt to the driver, and relays its answers", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);

    const sent = await sendTo(b, id, "hello");
    expect(sent.statusCode, sent.body).toBe(202);
    const { turnId } = SendInputResultSchema.parse(sent.json());
    const backend = backendOf(a, id);
    expect(backend.prompts.map((prompt) => prompt.text)).toEqual(["hello"]);
    expect(b.ctx.sessions.peek(id)).toBeUndefined(); // B still does not drive it
    expect(answered(a, "/v1/sessions/:id/inputs")).toEqual([202]);

    backend.emit(turnId, "permission.asked", {
      requestId: "per_1",
      permission: "edit",
      patterns: ["*"],
    });
    await expect.poll(() => a.ctx.sessions.peek(id)?.pendingAsks.length).toBe(1);
    const replies = vi.spyOn(backend, "replyPermission");
    const replied = await post(b, `/v1/sessions/${id}/permissions/per_1`, { reply: "once" });
    expect(replied.statusCode, replied.body).toBe(200);
    expect(replies).toHaveBeenCalledWith({ requestId: "per_1", reply: "once" }, expect.anything());
    // The driver's error is the client's, as it is.
    const unknown = await post(b, `/v1/sessions/${id}/permissions/per_nope`, { reply: "once" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: "not_found" } });
    expect(unknown.json().error.message).toContain("per_nope");

    const interrupted = await post(b, `/v1/sessions/${id}/interrupt`);
    expect(interrupted.statusCode, interrupted.body).toBe(200);
    expect(backend.interrupts).toBe(1);
  });

  it("forwards a read that needs the session's runtime (its context) to the driver", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);

    const read = await b.app.inject({
      method: "GET",
      url: `/v1/sessions/${id}/context`,
      headers: b.headers.json,
    });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toEqual({ children: [] });
    expect(answered(a, "/v1/sessions/:id/context")).toEqual([200]);
    expect(b.ctx.sessions.peek(id)).toBeUndefined(); // B still does not drive it
  });

  it("forwards a multipart send's bytes with their content type", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);
    const boundary = "----cluster";
    const part = (name: string, value: string, file?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file === undefined ? "" : `; filename="${file}"\r\nContent-Type: text/plain`}\r\n\r\n${value}\r\n`;
    const sent = await b.app.inject({
      method: "POST",
      url: `/v1/sessions/${id}/inputs`,
      headers: { ...b.headers.auth, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: `${part("text", "with a file")}${part("delivery", "queue")}${part("file", "file body", "f.txt")}--${boundary}--\r\n`,
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const prompt = backendOf(a, id).prompts[0];
    expect(prompt?.text).toBe("with a file");
    const file = prompt?.files?.[0];
    expect(file).toMatchObject({ name: "f.txt", mime: "text/plain" });
    expect(Buffer.from(file?.uri.split(",")[1] ?? "", "base64").toString()).toBe("file body");
  });

  it("keeps the body limits: a body over them is refused, not forwarded", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);
    const tooLarge = await sendTo(b, id, "x".repeat(b.ctx.limits.jsonBodyBytes));
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toMatchObject({ error: { code: "too_large" } });
    expect(answered(a, "/v1/sessions/:id/inputs")).toEqual([]);
  });

  it("never forwards a forwarded command again: 409 not_driver", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);
    const refused = await b.app.inject({
      method: "POST",
      url: `/v1/sessions/${id}/inputs`,
      headers: { ...b.headers.forwarded, "x-ocb-forwarded": "c" },
      payload: { text: "hello", delivery: "queue" },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: "not_driver", details: { driver: "a", address: a.address } },
    });
    expect(backendOf(a, id).prompts).toEqual([]);
    expect(answered(a, "/v1/sessions/:id/inputs")).toEqual([]);
  });

  it("looks the driver up again when the holder called does not drive the session, and takes it over when its lease ends", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);
    expect((await post(a, `/v1/sessions/${id}/release`)).statusCode).toBe(200);
    // The lease says A (for 1.5 s more), but A does not drive the session: it answers not_driver.
    await sql(
      url,
      `UPDATE leases SET holder = 'a', address = $2,
         expires_at = clock_timestamp() + interval '1500 milliseconds' WHERE session_id = $1`,
      [id, a.address],
    );
    const sent = await sendTo(b, id, "after the driver changed", { idempotencyKey: "k" });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(answered(a, "/v1/sessions/:id/inputs")).toContain(409);
    expect(b.ctx.sessions.peek(id)).toBeDefined();
    expect(b.cluster.leases.tokenOf(id)).toBeGreaterThan(1);
    expect(backendOf(b, id).prompts.map((prompt) => prompt.text)).toEqual([
      "after the driver changed",
    ]);
  });

  it("tries a driver that cannot be reached again until its lease expires, then drives the session itself", async () => {
    const url = await cluster.freshDatabase();
    const [a, b] = await twoListening(url);
    const id = await createClusterSession(a);
    // A dies: nothing answers at its address, its lease is left to expire.
    await a.app.close();
    await a.cluster.close({ release: false });
    const interrupted = await post(b, `/v1/sessions/${id}/interrupt`);
    expect(interrupted.statusCode, interrupted.body).toBe(200);
    expect(b.ctx.sessions.peek(id)).toBeDefined();
    expect(b.cluster.leases.tokenOf(id)).toBe(2);
  });

  it("answers to the Host of its cluster address, which other sidecars call it by", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a"); // its address: http://a.test:1
    const called = (host: string) =>
      a.app.inject({ url: "/v1/sessions", headers: { ...a.headers.auth, host } });
    expect((await called("a.test:1")).statusCode).toBe(200);
    expect((await called("b.test:1")).statusCode).toBe(421);
  });

  it("says so when the driver has no address to forward to", async () => {
    const url = await cluster.freshDatabase();
    const b = await cluster.sidecar(url, "b", { listen: true });
    const a = await cluster.sidecar(url, "a");
    const id = await createClusterSession(a);
    await sql(url, "UPDATE leases SET address = NULL WHERE session_id = $1", [id]);
    const refused = await sendTo(b, id, "hello");
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: "not_driver" } });
    expect(refused.json().error.message).toContain("--cluster-address");
  });
});
