/**
 * The cluster's record of which OpenCode server serves each directory, as sidecars use it
 * (a real Postgres; sessions on the in-process backend): a sidecar records its server for the
 * directories it creates sessions in, refuses to create or drive a session of a directory
 * another server serves (409 `conflict` naming that server), follows such a session's events
 * instead, and leaves its takeover to a sidecar attached to that server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ClusterSidecar, clusterSidecar } from "../../../test/support/cluster-sidecars.js";
import { JSON_HEADERS } from "../../../test/support/sidecar-harness.js";
import { usePostgres } from "../../../test/support/use-postgres.js";
import type { Store } from "../../store/store.js";
import { SessionInfoSchema } from "../../wire/http.js";
import { DirectoryServers } from "../directory-servers.js";
import { RemoteSource } from "./remote-source.js";
import { takeOverExpired } from "./takeover.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const S1 = "http://s1.test:4096";
const S2 = "http://s2.test:4096";

async function create(on: ClusterSidecar, directory?: string) {
  return await on.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: JSON_HEADERS,
    payload: directory === undefined ? {} : { directory },
  });
}

/** `forwarded`: as a sidecar forwards it, so that it is never forwarded again (answered here). */
function send(on: ClusterSidecar, id: string, options: { forwarded?: boolean } = {}) {
  return on.app.inject({
    method: "POST",
    url: `/v1/sessions/${id}/inputs`,
    headers: options.forwarded === true ? on.headers.forwarded : JSON_HEADERS,
    payload: { text: "hello", delivery: "queue" },
  });
}

interface ErrorAnswer {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Runs `on`'s takeover loop until the test ends; counts the checks of each session. */
function takeOverOn(on: ClusterSidecar): Map<string, number> {
  const checks = new Map<string, number>();
  const store: Pick<Store, "session"> = {
    session(id) {
      checks.set(id, (checks.get(id) ?? 0) + 1);
      return on.store.session(id);
    },
  };
  const stop = new AbortController();
  const running = takeOverExpired(
    { member: on.cluster, sessions: on.ctx.sessions, store, logger: on.logger },
    stop.signal,
  );
  cleanups.push(async () => {
    stop.abort();
    await running;
  });
  return checks;
}

describe("the record of which server serves a directory", () => {
  it("keeps the server's URL without credentials; the first to record a directory wins", async () => {
    const url = await postgres.freshDatabase();
    const one = await DirectoryServers.open(url, {
      server: "http://opencode:s3cret@s1.test:4096/",
      holderId: "a",
    });
    const two = await DirectoryServers.open(url, { server: S2, holderId: "b" });
    cleanups.push(
      () => one.close(),
      () => two.close(),
    );
    expect(one.server).toBe(S1);
    const [first, second] = await Promise.all([one.claim("/srv/p"), two.claim("/srv/p")]);
    expect(first).toEqual(second);
    expect(await two.recorded("/srv/p")).toMatchObject({ directory: "/srv/p" });
    expect(JSON.stringify(await one.recorded("/srv/p"))).not.toContain("s3cret");
    expect(await one.recorded("/srv/elsewhere")).toBeUndefined();
  });

  it("a sidecar creates sessions only in its server's directories, and records them", async () => {
    const url = await postgres.freshDatabase();
    const a = await clusterSidecar(url, "a", cleanups, { server: S1 });
    // B's operator allows A's directory too: the cluster's record still says whose it is.
    const b = await clusterSidecar(url, "b", cleanups, {
      server: S2,
      allowDirectories: [a.directory],
    });
    expect((await create(a)).statusCode).toBe(201);
    expect(await a.cluster.directories?.recorded(a.directory)).toMatchObject({
      server: S1,
      recordedBy: "a",
    });
    // Not allowed on a sidecar (C's operator named no other directory): refused first.
    const c = await clusterSidecar(url, "c", cleanups, { server: S2 });
    expect((await create(c, a.directory)).statusCode).toBe(403);
    const refused = await create(b, a.directory);
    expect(refused.statusCode).toBe(409);
    const body = refused.json() as ErrorAnswer;
    expect(body.error.code).toBe("conflict");
    expect(body.error.message).toContain(`served by the OpenCode server at ${S1}`);
    expect(body.error.details).toEqual({ directory: a.directory, server: S1 });
    expect((await create(b)).statusCode).toBe(201);
    expect(await b.cluster.directories?.recorded(b.directory)).toMatchObject({ server: S2 });
  });

  it("leaves a session of another server's directory to that server's sidecars: commands refused naming it, events followed, takeover by a sidecar of that server", async () => {
    const url = await postgres.freshDatabase();
    const a = await clusterSidecar(url, "a", cleanups, { server: S1 });
    const b = await clusterSidecar(url, "b", cleanups, { server: S2 });
    const id = SessionInfoSchema.parse((await create(a)).json()).id;
    expect((await send(a, id)).statusCode).toBe(202);
    await expect.poll(async () => (await a.store.read(id)).length).toBeGreaterThan(0);
    // Driven by A: B names the driver, as for any session.
    expect(((await send(b, id, { forwarded: true })).json() as ErrorAnswer).error.code).toBe(
      "not_driver",
    );

    const checksOnB = takeOverOn(b);
    await a.cluster.close({ release: false }); // A dies: its lease expires, nobody releases it
    await expect.poll(() => b.cluster.leases.holderOf(id), { timeout: 5_000 }).toBeUndefined();
    // B saw the expired lease twice and left it: its directory is S1's.
    await expect.poll(() => checksOnB.get(id) ?? 0, { timeout: 5_000 }).toBeGreaterThan(1);
    expect(b.ctx.sessions.peek(id)).toBeUndefined();
    const refused = await send(b, id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      error: { code: "conflict", details: { sessionId: id, directory: a.directory, server: S1 } },
    });
    // Asked about it, B answers what the store says; its events are followed from the store.
    const info = await b.app.inject({
      method: "GET",
      url: `/v1/sessions/${id}`,
      headers: JSON_HEADERS,
    });
    expect(info.statusCode, info.body).toBe(200);
    expect(SessionInfoSchema.parse(info.json())).toMatchObject({ id, open: false, state: "open" });
    expect(await b.ctx.sessions.source(id)).toBeInstanceOf(RemoteSource);

    // C, attached to S1, takes it over.
    const c = await clusterSidecar(url, "c", cleanups, { server: S1, directory: a.directory });
    takeOverOn(c);
    await expect.poll(() => c.ctx.sessions.peek(id), { timeout: 5_000 }).toBeDefined();
    expect(b.ctx.sessions.peek(id)).toBeUndefined();
    expect(b.logger.entries.map((entry) => entry.message)).not.toContain(
      "took over a session whose driver let its lease expire",
    );
    expect(((await send(b, id, { forwarded: true })).json() as ErrorAnswer).error.code).toBe(
      "not_driver",
    );
    expect((await send(c, id)).statusCode).toBe(202);
  });
});
