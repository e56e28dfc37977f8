/**
 * Deltas across sidecars (a real Postgres, sidecars listening in this process, sessions on
 * the in-process backend through the real runtime): a client of a sidecar that does not drive
 * the session gets the driver's deltas, joined to their part's text and none after its end;
 * the relay follows the session to its new driver; a relay subscription never opens or
 * adopts a session.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  CLUSTER_SECRET,
  type ClusterSidecar,
  clusterSidecar,
  createClusterSession,
} from "../../../test/support/cluster-sidecars.js";
import type { InProcessBackend } from "../../../test/support/in-process-backend.js";
import { messageWith, RawWsClient } from "../../../test/support/raw-ws.js";
import { TOKEN } from "../../../test/support/sidecar-harness.js";
import { canonicalEventsOf, subscribeOverWs } from "../../../test/support/sidecar-http.js";
import {
  LEASE_OF_A_HOLDER_TO_STALL,
  pastTwoHeartbeats,
  stallPastItsLease,
} from "../../../test/support/stalled-holder.js";
import { usePostgres } from "../../../test/support/use-postgres.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { RELAY_HEADER } from "../../sidecar/peer-routes.js";

const postgres = usePostgres();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Member = ClusterSidecar;

/** A sidecar of the cluster of `url`, listening at the address its leases name. */
const listeningSidecar = (url: string, holderId: string) =>
  clusterSidecar(url, holderId, cleanups, { listen: true });
const createSession = (on: Member) => createClusterSession(on, "relay");

/** Starts a turn on `on` (its driver) and gives the backend that runs it. */
async function startTurn(on: Member, id: string): Promise<InProcessBackend> {
  const sent = await on.app.inject({
    method: "POST",
    url: `/v1/sessions/${id}/inputs`,
    headers: on.headers.json,
    payload: { text: "hello", delivery: "queue" },
  });
  expect(sent.statusCode, sent.body).toBe(202);
  const backend = on.backends.get(id);
  if (backend?.running === undefined) throw new Error("no turn runs on the driver");
  return backend;
}

/** One text part streamed as `pieces` deltas, then its whole text. */
function streamPart(backend: InProcessBackend, partId: string, pieces: string[]): void {
  const turnId = backend.running ?? "";
  const stepId = `${partId}/step`;
  backend.emit(turnId, "step.started", { stepId });
  backend.emit(turnId, "text.started", { partId, stepId });
  for (const delta of pieces) backend.emit(turnId, "text.delta", { partId, delta });
  backend.emit(turnId, "text.ended", { partId, stepId, text: pieces.join("") });
  backend.emit(turnId, "step.ended", { stepId, finish: "stop" });
}

const pieces = (count: number, tag: string) =>
  Array.from({ length: count }, (_, index) => `${tag}${index} `);

async function subscribe(on: Member, id: string): Promise<RawWsClient> {
  const client = await subscribeOverWs({ url: on.address, token: TOKEN }, id, 0);
  cleanups.push(async () => client.close());
  await client.waitFor("caught-up", messageWith({ type: "caught-up" }));
  return client;
}

/** The deltas of `partId` the client received, and whether any came after its `text.ended`. */
function partSeenBy(client: RawWsClient, partId: string) {
  const events = canonicalEventsOf(client);
  const ofPart = (event: CanonicalEvent) =>
    "partId" in event.data && (event.data as { partId: string }).partId === partId;
  const endAt = events.findIndex((event) => event.type === "text.ended" && ofPart(event));
  const deltas = events.filter((event) => event.type === "text.delta" && ofPart(event));
  const lateDeltas = events
    .slice(endAt + 1)
    .filter((event) => event.type === "text.delta" && ofPart(event));
  const end = events[endAt];
  return {
    joined: deltas.map((event) => (event.data as { delta: string }).delta).join(""),
    text: end?.type === "text.ended" ? end.data.text : undefined,
    deltas: deltas.length,
    lateDeltas: endAt < 0 ? -1 : lateDeltas.length,
  };
}

const hasEvent = (client: RawWsClient, type: string, partId?: string) =>
  canonicalEventsOf(client).some(
    (event) =>
      event.type === type &&
      (partId === undefined || (event.data as { partId?: string }).partId === partId),
  );

async function until(what: string, ready: () => boolean): Promise<void> {
  await expect.poll(ready, { timeout: 20_000, message: what }).toBe(true);
}

describe("deltas across sidecars", () => {
  it("a client on B gets the deltas of A's turn, joined to the text, none after its part's end", async () => {
    const url = await postgres.freshDatabase();
    const [a, b] = [await listeningSidecar(url, "a"), await listeningSidecar(url, "b")];
    const id = await createSession(a);
    const onA = await subscribe(a, id);
    const onB = await subscribe(b, id);
    const backend = await startTurn(a, id);
    const first = pieces(40, "first");
    streamPart(backend, "part-1", first);
    await until("part-1's end on B", () => hasEvent(onB, "text.ended", "part-1"));
    // A late delta of part-1 (after its end, on A): relayed, but never handed out on B.
    backend.emit(backend.running ?? "", "text.delta", { partId: "part-1", delta: "late " });
    streamPart(backend, "part-2", pieces(20, "second"));
    // The relay keeps order: part-2's deltas on B mean the late one reached B before them.
    await until("part-2's deltas on B", () => hasEvent(onB, "text.delta", "part-2"));
    backend.end();
    await until("the turn's end on A and B", () =>
      [onA, onB].every((client) => hasEvent(client, "turn.ended")),
    );

    expect(partSeenBy(onA, "part-1").lateDeltas).toBe(1); // the driver's client got it
    expect(partSeenBy(onB, "part-1")).toEqual({
      joined: first.join(""),
      text: first.join(""),
      deltas: 40,
      lateDeltas: 0,
    });
    const second = partSeenBy(onB, "part-2");
    expect(second.joined).toBe(second.text);
    expect(second.lateDeltas).toBe(0);
    // The durable events are exactly the store's, in order.
    const durable = (events: CanonicalEvent[]) =>
      events.filter((event) => event.durable).map((event) => `${event.seq}:${event.id}`);
    expect(durable(canonicalEventsOf(onB))).toEqual(durable(await a.store.read(id)));
    expect(b.inCluster.sessions.relay.sockets).toBe(1);
    // The relay follows its subscribers' lifetime: the last one gone, its socket closes.
    onB.close();
    await until("the relay socket's close", () => b.inCluster.sessions.relay.sockets === 0);
  });

  it("follows the session to its new driver after the lease moves", async () => {
    const url = await postgres.freshDatabase();
    const a = await clusterSidecar(url, "a", cleanups, {
      listen: true,
      lease: LEASE_OF_A_HOLDER_TO_STALL,
    });
    const [b, c] = [await listeningSidecar(url, "b"), await listeningSidecar(url, "c")];
    const id = await createSession(a);
    const onC = await subscribe(c, id);
    const onA = await startTurn(a, id);
    streamPart(onA, "before", pieces(5, "a"));
    await until("A's part on C", () => hasEvent(onC, "text.delta", "before"));
    // A stalled past its lease and B took the session over; A's next heartbeat finds it taken.
    await stallPastItsLease(url, "a", id);
    await pastTwoHeartbeats();
    await b.ctx.sessions.open(id);
    await expect.poll(() => a.ctx.sessions.peek(id), { timeout: 5_000 }).toBeUndefined();
    const onB = b.backends.get(id);
    if (onB === undefined) throw new Error("B did not adopt the session");
    // The relay finds B within its backoff; B's parts stream to C as deltas once it has.
    let round = 0;
    await until("a part of B's streamed to C", () => {
      if (hasEvent(onC, "text.delta", `after-${round}`)) return true;
      if (onB.running === undefined) onB.emit("turn_b", "turn.started", { inputId: "in_b" });
      round += 1;
      streamPart(onB, `after-${round}`, pieces(5, "b"));
      return false;
    });
    const moved = partSeenBy(onC, `after-${round}`);
    expect(moved.joined).toBe(moved.text);
  });

  it("a relay subscription never opens, adopts or relays a session this sidecar does not drive", async () => {
    const url = await postgres.freshDatabase();
    const [a, b] = [await listeningSidecar(url, "a"), await listeningSidecar(url, "b")];
    const kept = await createSession(a);
    const released = await a.app.inject({
      method: "POST",
      url: `/v1/sessions/${kept}/release`,
      headers: a.headers.json,
      payload: {},
    });
    expect(released.statusCode, released.body).toBeLessThan(300);
    const drivenByB = await createSession(b);
    const relay = await RawWsClient.connect(`${a.address.replace(/^http/, "ws")}/v1/ws`, {
      headers: { authorization: `Bearer ${CLUSTER_SECRET}`, [RELAY_HEADER]: "1" },
    });
    cleanups.push(async () => relay.close());
    for (const sessionId of [kept, drivenByB]) {
      relay.send({ type: "subscribe", sessionId, after: 0 });
      await relay.waitFor(
        `not_driver for ${sessionId}`,
        (message) =>
          messageWith({ type: "error", sessionId })(message) &&
          (message as { error: { code: string } }).error.code === "not_driver",
      );
    }
    expect(a.ctx.sessions.peek(kept)).toBeUndefined(); // not adopted
    expect(a.ctx.sessions.peek(drivenByB)).toBeUndefined();
    expect(await a.cluster.leases.holderOf(kept)).toBeUndefined();
    expect((await a.cluster.leases.holderOf(drivenByB))?.holder).toBe("b");
  });
});
