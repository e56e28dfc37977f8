/**
 * End to end: commands across sidecars. Three `ocb serve --cluster` processes (A, B, C), each
 * with its `--cluster-address`, on one embedded Postgres, attached to one real `opencode
 * serve` with the scripted model. A drives a session; a send to C with an idempotency key is
 * admitted once and runs (the turn ends, driven by A); its retry through B is not admitted
 * again (the replayed answer; one user input in the transcript); an interrupt sent to B
 * reaches A and ends A's running turn.
 */
import { expect, it } from "vitest";
import type { CanonicalEventOf } from "../../src/events/canonical.js";
import { useOcbCluster } from "../support/ocb-cluster.js";
import type { RawWsClient } from "../support/raw-ws.js";
import { canonicalEventsOf } from "../support/sidecar-http.js";

const TOKEN = "sidecar-cluster-commands-e2e-token-0123456789";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;

const fixture = useOcbCluster({ token: TOKEN, boundMs: BOUND_MS });
const { call, subscribe } = fixture;

/** A raw call: the status and headers matter here, not only the body. */
async function send(url: string, sessionId: string, body: object) {
  const response = await fetch(`${url}/v1/sessions/${sessionId}/inputs`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(BOUND_MS),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const turnEnds = (client: RawWsClient) =>
  canonicalEventsOf(client).filter(
    (event): event is CanonicalEventOf<"turn.ended"> => event.type === "turn.ended",
  );

it("admits a send to C once, for A to run, and not again when retried through B; an interrupt through B reaches A", async () => {
  const [a, b, c] = [
    await fixture.cluster.start("A", { addressed: true }),
    await fixture.cluster.start("B", { addressed: true }),
    await fixture.cluster.start("C", { addressed: true }),
  ];
  const session = (await call(a.url, "POST", "/v1/sessions", { title: "commands" })) as {
    id: string;
  };
  const onA = await subscribe(a.url, session.id, 0);
  await onA.waitFor("A's caught-up", (m) => (m as { type: string }).type === "caught-up");

  const input = { text: "[[slow 6 50]]", delivery: "queue", idempotencyKey: "e2e-key-1" };
  const first = await send(c.url, session.id, input);
  expect(first.status, JSON.stringify(first.body)).toBe(202);
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  await fixture.cluster.until("the turn's end on A", () => turnEnds(onA).length === 1, a, c);
  expect(turnEnds(onA)[0]?.data.outcome).toBe("completed");

  const retried = await send(b.url, session.id, input);
  expect(retried.status, JSON.stringify(retried.body)).toBe(202);
  expect(retried.headers.get("idempotent-replayed")).toBe("true");
  expect(retried.body).toEqual(first.body);
  const transcript = await fixture.store.read(session.id);
  expect(transcript.filter((event) => event.type === "input.admitted")).toHaveLength(1);
  expect(transcript.filter((event) => event.type === "turn.started")).toHaveLength(1);
  // Neither B nor C drives it: A does, and ran it.
  expect(a.cli.stderr).not.toContain("took over a session");

  // A long turn, interrupted through B.
  const long = await send(a.url, session.id, { text: "[[slow 60 250]]", delivery: "queue" });
  expect(long.status, JSON.stringify(long.body)).toBe(202);
  await fixture.cluster.until(
    "the long turn under way on A",
    () => canonicalEventsOf(onA).filter((event) => event.type === "text.delta").length >= 8,
    a,
  );
  await call(b.url, "POST", `/v1/sessions/${session.id}/interrupt`, {});
  await fixture.cluster.until("the long turn's end on A", () => turnEnds(onA).length === 2, a, b);
  expect(turnEnds(onA)[1]?.data.outcome).toBe("interrupted");
});
