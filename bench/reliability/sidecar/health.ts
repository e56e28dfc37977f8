/**
 * Whether a sidecar is still healthy after what a scenario did to it: `/healthz` says so, and
 * an ordinary send on a new session runs a turn that completes, seen by a WebSocket subscriber.
 */
import { messageWith, RawWsClient } from "../../../test/support/raw-ws.js";
import { within } from "../../../test/support/within.js";
import type { SidecarRig } from "./rig.js";

const BOUND_MS = 60_000;

async function callJson(rig: SidecarRig, method: string, path: string, body?: unknown) {
  const response = await fetch(`${rig.url}${path}`, {
    method,
    headers: { ...rig.auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(BOUND_MS),
  });
  const json: unknown = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json as Record<string, unknown>;
}

/** True when the sidecar answers its health check and a send's turn completes. */
export async function completesATurn(
  rig: SidecarRig,
  note: (line: string) => void,
): Promise<boolean> {
  let client: RawWsClient | undefined;
  try {
    const health = await fetch(`${rig.url}/healthz`, { signal: AbortSignal.timeout(BOUND_MS) });
    if (health.status !== 200) throw new Error(`/healthz answered ${health.status}`);
    const session = await callJson(rig, "POST", "/v1/sessions", { title: "health check" });
    const sessionId = String(session.id);
    client = await within(
      RawWsClient.connect(`${rig.url.replace(/^http/, "ws")}/v1/ws`, { headers: rig.auth }),
      "the WebSocket handshake",
      BOUND_MS,
    );
    client.send({ type: "subscribe", sessionId, after: 0 });
    await client.waitFor("caught up", messageWith({ type: "caught-up" }));
    const sent = await callJson(rig, "POST", `/v1/sessions/${sessionId}/inputs`, {
      text: "[[reply still healthy]]",
      delivery: "queue",
    });
    const at = await client.waitFor("the turn's end", (message) => {
      const event = (message as { event?: { type?: string; turnId?: string } }).event;
      return event?.type === "turn.ended" && event.turnId === sent.turnId;
    });
    const ended = client.received[at] as { event: { data: { outcome: string } } };
    if (ended.event.data.outcome !== "completed") {
      throw new Error(`the turn ended ${ended.event.data.outcome}`);
    }
    return true;
  } catch (error) {
    note(`health check failed: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  } finally {
    client?.close();
  }
}
