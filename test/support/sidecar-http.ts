/** Talking to a running `ocb serve` as the end-to-end tests do: JSON calls and raw sockets. */
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { RawWsClient } from "./raw-ws.js";

/** Calls the sidecar's API with its bearer token; a non-2xx answer throws, with its body. */
export async function callSidecar(
  sidecar: { url: string; token: string; boundMs: number },
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${sidecar.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sidecar.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(sidecar.boundMs),
  });
  const json: unknown = await response.json();
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  }
  return json;
}

/** The canonical events a raw WebSocket client received, in order. */
export function canonicalEventsOf(client: RawWsClient): CanonicalEvent[] {
  return client.received.flatMap((message) => {
    const { type, event } = message as { type: string; event?: CanonicalEvent };
    return type === "event" && event !== undefined ? [event] : [];
  });
}

/** The durable events of a list (those with a seq), in its order. */
export const durable = (events: CanonicalEvent[]): CanonicalEvent[] =>
  events.filter((event) => event.seq !== undefined);

/** Each durable event as `seq:id`, to compare two lists or a list and the store. */
export const seqAndId = (events: CanonicalEvent[]): string[] =>
  durable(events).map((event) => `${event.seq}:${event.id}`);

/** The last seq a raw client received (0: none). */
export const lastSeqOf = (client: RawWsClient): number =>
  Math.max(0, ...durable(canonicalEventsOf(client)).map((event) => event.seq ?? 0));

/** A WebSocket to the sidecar at `url`, subscribed to the session after `after`. */
export async function subscribeOverWs(
  sidecar: { url: string; token: string },
  sessionId: string,
  after: number,
): Promise<RawWsClient> {
  const client = await RawWsClient.connect(`${sidecar.url.replace(/^http/, "ws")}/v1/ws`, {
    headers: { authorization: `Bearer ${sidecar.token}` },
  });
  client.send({ type: "subscribe", sessionId, after });
  return client;
}
