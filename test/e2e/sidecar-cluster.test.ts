/**
 * End to end: two `ocb serve --cluster` processes (A and B) on one embedded Postgres, both
 * attached to one real `opencode serve` with the scripted model. A client on B follows a turn
 * A drives through B's WebSocket, with the same durable events as a client on A, and its
 * deltas (relayed from A: joined to their part's text, none after its end); a command already
 * forwarded once is not forwarded again: B says who drives the session (`not_driver`).
 * SIGKILL of A mid-turn: B takes the lease over and adopts the session from the stored
 * cursor, and its client ends with the turn's durable events whole, no gap, no duplicate,
 * and one `turn.ended`.
 */

import { expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { CLUSTER_SECRET } from "../support/cluster-secret.js";
import { type OcbClusterMember, useOcbCluster } from "../support/ocb-cluster.js";
import type { RawWsClient } from "../support/raw-ws.js";
import { canonicalEventsOf, durable, lastSeqOf, seqAndId } from "../support/sidecar-http.js";

const TOKEN = "sidecar-cluster-e2e-token-0123456789";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;

const fixture = useOcbCluster({ token: TOKEN, boundMs: BOUND_MS });
const { call, subscribe } = fixture;

/** Waits for `ready()`, with the output of the sidecars `watched` when it never holds. */
const until = (what: string, ready: () => boolean, ...watched: OcbClusterMember[]) =>
  fixture.cluster.until(what, ready, ...watched);

/** The events up to `last` (live ones kept): a late event may follow what is compared. */
const upTo = (events: CanonicalEvent[], last: number) =>
  events.filter((event) => event.seq === undefined || event.seq <= last);
const ended = (client: RawWsClient) =>
  canonicalEventsOf(client).some((event) => event.type === "turn.ended");

/** Each streamed part a client saw end: its deltas joined, its value, deltas after its end. */
function partsOf(events: CanonicalEvent[]) {
  const parts = new Map<string, { joined: string; value?: string; deltasAfterEnd: number }>();
  for (const event of events) {
    const part = partOf(event);
    if (part === undefined) continue;
    const seen = parts.get(part.key) ?? { joined: "", deltasAfterEnd: 0 };
    parts.set(part.key, seen);
    if (part.delta !== undefined) {
      if (seen.value !== undefined) seen.deltasAfterEnd += 1;
      else seen.joined += part.delta;
    } else if (part.value !== undefined) seen.value = part.value;
  }
  return [...parts].flatMap(([key, part]) => (part.value === undefined ? [] : [{ key, ...part }]));
}

function partOf(
  event: CanonicalEvent,
): { key: string; delta?: string; value?: string } | undefined {
  switch (event.type) {
    case "text.delta":
    case "reasoning.delta":
      return { key: `${event.type.split(".")[0]} ${event.data.partId}`, delta: event.data.delta };
    case "text.ended":
    case "reasoning.ended":
      return { key: `${event.type.split(".")[0]} ${event.data.partId}`, value: event.data.text };
    case "tool.input.delta":
      return { key: `tool ${event.data.callId}`, delta: event.data.delta };
    case "tool.input.ended":
      return { key: `tool ${event.data.callId}`, value: event.data.input };
    default:
      return undefined;
  }
}

let a: OcbClusterMember;
let b: OcbClusterMember;

it("a client on B follows a turn driven by A: the same durable events as a client on A, and its deltas", async () => {
  // A addressed: B's delta relay reaches it there.
  [a, b] = [
    await fixture.cluster.start("A", { addressed: true }),
    await fixture.cluster.start("B"),
  ];
  const session = (await call(a.url, "POST", "/v1/sessions", { title: "cluster" })) as {
    id: string;
  };
  const onA = await subscribe(a.url, session.id, 0);
  const onB = await subscribe(b.url, session.id, 0);
  await onB.waitFor("B's caught-up", (m) => (m as { type: string }).type === "caught-up");
  await call(a.url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: "[[slow 8 50]]",
    delivery: "queue",
  });
  await until("the turn's end on A and on B", () => ended(onA) && ended(onB), a, b);
  // Compared at one seq: what was stored by now, once both have it (a late event, a title,
  // may still come after the turn's end, to one before the other).
  const stored = await fixture.store.read(session.id);
  const last = stored.at(-1)?.seq ?? 0;
  await until(
    "the stored events on A and on B",
    () => lastSeqOf(onA) >= last && lastSeqOf(onB) >= last,
    a,
    b,
  );

  const fromA = upTo(canonicalEventsOf(onA), last);
  const fromB = upTo(canonicalEventsOf(onB), last);
  expect(seqAndId(fromB)).toEqual(seqAndId(fromA));
  expect(durable(fromB).map((e) => e.seq)).toEqual(durable(fromB).map((_, index) => index + 1));
  expect(seqAndId(fromB)).toEqual(seqAndId(stored));
  expect(fromA.some((event) => event.type === "text.delta")).toBe(true);
  // Deltas, relayed from A: streamed (more than the one a part's end would make), each
  // part's joined to its text, none after its end.
  const textDeltas = fromB.filter((event) => event.type === "text.delta");
  expect(textDeltas.length).toBeGreaterThan(1);
  const parts = partsOf(fromB);
  expect(parts.length).toBeGreaterThan(0);
  for (const part of parts) {
    expect(part.joined, part.key).toBe(part.value);
    expect(part.deltasAfterEnd, part.key).toBe(0);
  }

  // A command forwarded once already (as a sidecar forwards it, with the cluster secret) is
  // not forwarded again: B does not drive A's session and says who does.
  const refused = await fetch(`${b.url}/v1/sessions/${session.id}/inputs`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${CLUSTER_SECRET}`,
      "content-type": "application/json",
      "x-ocb-forwarded": "another",
    },
    body: JSON.stringify({ text: "hello", delivery: "queue" }),
  });
  expect(refused.status).toBe(409);
  const body = (await refused.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("not_driver");
  expect(body.error.message).toContain("sidecar A");
});

it("SIGKILL of A mid-turn: B takes the session over and the turn ends exactly once", async () => {
  const COUNT = 30;
  const session = (await call(a.url, "POST", "/v1/sessions", { title: "failover" })) as {
    id: string;
  };
  const onA = await subscribe(a.url, session.id, 0);
  const onB = await subscribe(b.url, session.id, 0);
  await onB.waitFor("B's caught-up", (m) => (m as { type: string }).type === "caught-up");
  await call(a.url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: `[[slow ${COUNT} 250]]`,
    delivery: "queue",
  });
  await until(
    "the turn under way on A",
    () => canonicalEventsOf(onA).filter((event) => event.type === "text.delta").length >= 3,
    a,
  );
  process.kill(-a.cli.pid, "SIGKILL");
  expect(await a.cli.exited).toBeNull();
  expect(ended(onB)).toBe(false);

  await until("the turn's end on B", () => ended(onB), b);
  expect(b.cli.stderr).toContain("took over a session whose driver let its lease expire");
  // Compared at one seq: what was stored by now, once B has it (a late event may follow).
  const stored = await fixture.store.read(session.id);
  const last = stored.at(-1)?.seq ?? 0;
  await until("the stored events on B", () => lastSeqOf(onB) >= last, b);
  const fromB = durable(upTo(canonicalEventsOf(onB), last));
  expect(fromB.map((e) => e.seq)).toEqual(fromB.map((_, index) => index + 1));
  expect(seqAndId(fromB)).toEqual(seqAndId(stored));
  const ends = fromB.filter((event) => event.type === "turn.ended");
  expect(ends).toHaveLength(1);
  const text = Array.from({ length: COUNT }, (_, index) => `tok${index + 1}`).join(" ");
  expect(ends[0]?.data).toMatchObject({ outcome: "completed", text });
  expect(fromB.filter((event) => event.type === "turn.started")).toHaveLength(1);
});
