/**
 * Trust between the sidecars of a cluster (a real Postgres, sidecars listening in this process,
 * sessions on the in-process backend): calls between sidecars carry the cluster's secret, not
 * the clients' token, and the routes other sidecars call take only that secret (which in turn
 * opens nothing to a client); an address from a `leases` row that the policy refuses is never
 * called, so neither secret nor token reaches whoever wrote it; between sidecars serving https
 * the certificate is verified against the cluster's CA.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  CLUSTER_SECRET,
  type ClusterSidecar,
  createClusterSession,
  sendTo,
  useClusterSidecars,
} from "../../../test/support/cluster-sidecars.js";
import { selfSignedCertificate } from "../../../test/support/self-signed.js";
import { TOKEN } from "../../../test/support/sidecar-harness.js";
import { within } from "../../../test/support/within.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { createSidecarContext } from "../../sidecar/sidecar.js";

const cluster = useClusterSidecars();
const { cleanups } = cluster;

async function sql(url: string, text: string, values: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** What an attacker's listener saw: every request's and handshake's headers. */
interface Listener {
  port: number;
  seen: IncomingHttpHeaders[];
}

/** An HTTP listener on loopback that records what reaches it and answers 202 to anything. */
async function attackersListener(): Promise<Listener> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(202, { "content-type": "application/json" }).end("{}");
  });
  server.on("upgrade", (request, socket) => {
    seen.push(request.headers);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("not listening");
  return { port: address.port, seen };
}

/** Makes `holder` at `address` the holder of `sessionId`'s lease for an hour, as a row written by hand. */
function leaseTo(url: string, sessionId: string, holder: string, address: string) {
  return sql(
    url,
    `UPDATE leases SET holder = $2, address = $3,
       expires_at = clock_timestamp() + interval '1 hour', token = token + 1
     WHERE session_id = $1`,
    [sessionId, holder, address],
  );
}

const secretIn = (seen: IncomingHttpHeaders[], secret: string) =>
  seen.some((headers) => JSON.stringify(headers).includes(secret));

function refusals(on: ClusterSidecar) {
  return on.logger.entries.filter(
    (entry) => entry.level === "warn" && entry.message.includes("refused to call sidecar evil"),
  );
}

describe("calls between sidecars", () => {
  it("take the cluster secret only: a client's token is refused on them, the secret is no client token", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a");
    const id = await createClusterSession(a);
    const send = (headers: Record<string, string>, path = `/v1/sessions/${id}/inputs`) =>
      a.app.inject({
        method: "POST",
        url: path,
        headers,
        payload: { text: "x", delivery: "queue" },
      });

    const withToken = await send({ ...a.headers.json, "x-ocb-forwarded": "another" });
    expect(withToken.statusCode).toBe(401);
    expect(withToken.json().error.message).toContain("OCB_CLUSTER_SECRET");
    const withSecret = await send(a.headers.forwarded);
    expect(withSecret.statusCode, withSecret.body).toBe(202);

    // The secret is no client's token: not on a client's request, nor marked on a route
    // no sidecar calls, nor with the relay's mark on a command route.
    const unmarked = { ...a.headers.json, authorization: `Bearer ${CLUSTER_SECRET}` };
    expect((await send(unmarked)).statusCode).toBe(401);
    const listed = await a.app.inject({ method: "GET", url: "/v1/sessions", headers: unmarked });
    expect(listed.statusCode).toBe(401);
    expect((await send(a.headers.forwarded, "/v1/sessions")).statusCode).toBe(401);
    const relayMark = { ...unmarked, "x-ocb-cluster-relay": "1" };
    expect((await send(relayMark)).statusCode).toBe(401);
    // The relay's handshake with a client's token, and a forwarded mark on the stream route.
    const handshake = (headers: Record<string, string>) =>
      a.app.inject({ method: "GET", url: "/v1/ws", headers });
    expect((await handshake({ ...a.headers.auth, "x-ocb-cluster-relay": "1" })).statusCode).toBe(
      401,
    );
    expect((await handshake({ ...unmarked, "x-ocb-forwarded": "another" })).statusCode).toBe(401);
    expect(a.backends.get(id)?.prompts.map((prompt) => prompt.text)).toEqual(["x"]);
  });

  it("a sidecar in a cluster needs a cluster secret, and not the clients' token", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a");
    const options = { bridge: a.ctx.bridge, token: TOKEN, cluster: a.cluster };
    const stopping = new AbortController().signal;
    expect(() => createSidecarContext(options, stopping)).toThrow(/needs clusterTrust\.secret/);
    expect(() =>
      createSidecarContext({ ...options, clusterTrust: { secret: TOKEN } }, stopping),
    ).toThrow(/must differ from the clients' token/);
    expect(() =>
      createSidecarContext({ ...options, clusterTrust: { secret: "short" } }, stopping),
    ).toThrow(/at least 16 characters/);
  });

  it("never call an address from the leases the policy refuses: the attacker gets no token, no secret", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a", { listen: true });
    const c = await cluster.sidecar(url, "c", { listen: true });
    const id = await createClusterSession(a);
    const attacker = await attackersListener();
    // 0.0.0.0 reaches this machine's listeners, yet is no loopback name: plain http to it
    // would cross a network. Checked first: the attacker is reachable there.
    const address = `http://0.0.0.0:${attacker.port}`;
    expect((await fetch(`${address}/probe`)).status).toBe(202);
    attacker.seen.length = 0;
    await leaseTo(url, id, "evil", address);

    // The delta relay of a reader on C, and commands sent to C: none goes to the address.
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    c.inCluster.sessions.relay.follow(id, { delta() {}, live() {}, lost() {} }, stop.signal);
    const sent = await sendTo(c, id, "to the attacker?");
    expect(sent.statusCode).toBe(503);
    expect(sent.json().error.message).toContain("refused");
    expect((await sendTo(c, id, "again")).statusCode).toBe(503);
    expect(attacker.seen).toEqual([]);
    // Said once (with why), never with a secret.
    expect(refusals(c)).toHaveLength(1);
    expect(refusals(c)[0]?.message).toContain("plain http to another machine");
    expect(JSON.stringify(c.logger.entries)).not.toContain(CLUSTER_SECRET);

    // Addresses with credentials or a path are no origins: refused too.
    for (const tricky of [
      `http://127.0.0.1:${a.address.split(":")[2]}@0.0.0.0:${attacker.port}`,
      `http://127.0.0.1:${attacker.port}/v1/sessions/x/inputs?`,
    ]) {
      await leaseTo(url, id, "evil", tricky);
      expect((await sendTo(c, id, "tricked?")).statusCode).toBe(503);
    }
    expect(attacker.seen).toEqual([]);
    expect(a.backends.get(id)?.prompts ?? []).toEqual([]);
  });

  it("with --cluster-insecure-http, call a plain http address beyond loopback with the secret, never the token", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a", { listen: true });
    const c = await cluster.sidecar(url, "c", { listen: true, trust: { insecureHttp: true } });
    const id = await createClusterSession(a);
    const attacker = await attackersListener();
    await leaseTo(url, id, "evil", `http://0.0.0.0:${attacker.port}`);
    expect((await sendTo(c, id, "over plain http")).statusCode).toBe(202);
    expect(attacker.seen).toHaveLength(1);
    expect(secretIn(attacker.seen, CLUSTER_SECRET)).toBe(true);
    expect(secretIn(attacker.seen, TOKEN)).toBe(false);
  });
});

describe("sidecars serving https", () => {
  const tls = selfSignedCertificate();

  it("forward commands and relay deltas to a driver whose certificate the cluster's CA signed", async () => {
    const url = await cluster.freshDatabase();
    const trust = { ca: tls.cert };
    const a = await cluster.sidecar(url, "a", { listen: true, tls, trust });
    const b = await cluster.sidecar(url, "b", { listen: true, tls, trust });
    expect(a.address).toMatch(/^https:/);
    const id = await createClusterSession(a);
    const sent = await sendTo(b, id, "over https");
    expect(sent.statusCode, sent.body).toBe(202);
    const backend = a.backends.get(id);
    expect(backend?.prompts.map((prompt) => prompt.text)).toEqual(["over https"]);

    const deltas: CanonicalEvent[] = [];
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    const live = new Promise<void>((resolve) => {
      b.inCluster.sessions.relay.follow(
        id,
        { delta: (event) => deltas.push(event), live: resolve, lost() {} },
        stop.signal,
      );
    });
    await within(live, "the relay over wss to be live", 10_000);
    const turnId = backend?.running ?? "";
    backend?.emit(turnId, "step.started", { stepId: "s" });
    backend?.emit(turnId, "text.started", { partId: "p", stepId: "s" });
    backend?.emit(turnId, "text.delta", { partId: "p", delta: "secure" });
    await expect.poll(() => deltas.map((event) => event.type)).toContain("text.delta");
  });

  it("refuse a driver whose certificate the cluster does not trust: nothing is sent to it", async () => {
    const url = await cluster.freshDatabase();
    const a = await cluster.sidecar(url, "a", { listen: true, tls, trust: { ca: tls.cert } });
    // C trusts Node's public CAs only (no --cluster-ca): A's certificate is unknown to it.
    const c = await cluster.sidecar(url, "c", { listen: true, tls });
    const id = await createClusterSession(a);
    const sent = await sendTo(c, id, "to an unverified peer?");
    expect(sent.statusCode).toBe(503);
    expect(sent.json().error.message).toMatch(/certificate/);
    expect(a.backends.get(id)?.prompts).toEqual([]);
    const forwarded = a.logger.entries.filter(
      (entry) => entry.message === "request" && entry.fields?.route === "/v1/sessions/:id/inputs",
    );
    expect(forwarded).toEqual([]);
  });
});
