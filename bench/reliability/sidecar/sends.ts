/**
 * Sends to a sidecar as the clients of the sidecar-clients scenario make them: a random prompt
 * for the scripted model, queued or steered, always with an idempotency key; some are cut
 * mid-request (the client aborts) and sent again with the same key, as a client that lost its
 * connection does. Every answer is kept, to check that each send admitted ends its turn once.
 */
import { randomUUID } from "node:crypto";
import type { SidecarRig } from "./rig.js";

/** A send the sidecar admitted: its session, key, and the turn it started or joined. */
export interface AdmittedSend {
  sessionId: string;
  key: string;
  turnId: string;
  inputId?: string;
}

export interface SendTally {
  admitted: AdmittedSend[];
  /** Sends cut mid-request by the client (then sent again with the same key). */
  cut: number;
  /** Answers that were not 202, by status. */
  refused: Map<number, number>;
  /** Sends that got no answer at all, even when sent again. */
  unanswered: number;
}

export function newSendTally(): SendTally {
  return { admitted: [], cut: 0, refused: new Map(), unanswered: 0 };
}

/** Bound on one send: a real turn is not awaited, only its admission. */
const SEND_BOUND_MS = 60_000;

async function post(
  rig: SidecarRig,
  sessionId: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${rig.url}/v1/sessions/${sessionId}/inputs`, {
    method: "POST",
    headers: { ...rig.auth, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The prompts: plain replies, streamed ones, reasoning, a tool call. */
export function promptFor(pick: number, label: string): string {
  switch (pick % 4) {
    case 0:
      return `[[reply ${label}]]`;
    case 1:
      return `[[slow 6 5]]`;
    case 2:
      return `[[reasoning thinking about ${label}]] [[chunks 4]] [[reply ${label} done]]`;
    default:
      return `[[tool bash {"command":"echo ${label}"}]] [[then ran ${label}]]`;
  }
}

/**
 * One send; `cutAfterMs` aborts the first attempt that long after it went out, and the send
 * goes again with the same key.
 */
export async function sendOnce(
  rig: SidecarRig,
  tally: SendTally,
  options: { sessionId: string; text: string; delivery: "queue" | "steer"; cutAfterMs?: number },
): Promise<void> {
  const key = randomUUID();
  const body = { text: options.text, delivery: options.delivery, idempotencyKey: key };
  let answer: { status: number; json: Record<string, unknown> } | undefined;
  if (options.cutAfterMs !== undefined) {
    try {
      answer = await post(rig, options.sessionId, body, AbortSignal.timeout(options.cutAfterMs));
    } catch {
      tally.cut++; // as planned: sent again below
    }
  }
  try {
    answer ??= await post(rig, options.sessionId, body, AbortSignal.timeout(SEND_BOUND_MS));
  } catch {
    tally.unanswered++;
    return;
  }
  if (answer.status !== 202) {
    tally.refused.set(answer.status, (tally.refused.get(answer.status) ?? 0) + 1);
    return;
  }
  const { turnId, inputId } = answer.json;
  tally.admitted.push({
    sessionId: options.sessionId,
    key,
    turnId: String(turnId),
    ...(typeof inputId === "string" ? { inputId } : {}),
  });
}
