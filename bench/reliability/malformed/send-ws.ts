/**
 * Plays the WebSocket cases against `/v1/ws`: frames on a socket subscribed to the target
 * session (a few at a time, one answer awaited before the next, a fresh socket before the
 * invalid-message limit), frames that must close the socket (1009, 1008), and refused
 * handshakes. Each outcome is told to `check` as what was expected and what came.
 */
import { messageWith, RawWsClient } from "../../../test/support/raw-ws.js";
import { within } from "../../../test/support/within.js";
import type { WsFrameCase, WsHandshakeCase } from "./ws-cases.js";

/** What happened to one case: `got` equals `expected` when it was answered as documented. */
export interface WsOutcome {
  kind: "ws-message" | "ws-handshake" | "ws-close";
  expected: string;
  got: string;
  frames: number;
}

/** Bound on a handshake: a safety net, not a speed check. */
const HANDSHAKE_BOUND_MS = 15_000;
/** Frames per socket: below the 20 invalid messages a minute that close one (1008). */
const FRAMES_PER_SOCKET = 15;

interface WsTarget {
  url: string;
  token: string;
  sessionId: string;
}

const wsUrl = (target: WsTarget, path = "/v1/ws") => `${target.url.replace(/^http/, "ws")}${path}`;

async function subscribedSocket(target: WsTarget): Promise<RawWsClient> {
  const client = await within(
    RawWsClient.connect(wsUrl(target), { headers: { authorization: `Bearer ${target.token}` } }),
    "a WebSocket handshake",
    HANDSHAKE_BOUND_MS,
  );
  client.send({ type: "subscribe", sessionId: target.sessionId, after: 0 });
  await client.waitFor("caught up", messageWith({ type: "caught-up" }));
  return client;
}

function errorCode(message: unknown): string {
  const error = (message as { error?: { code?: unknown } }).error;
  return typeof error?.code === "string" ? error.code : "(no code)";
}

/** One socket's share of the frame cases, in order. */
async function playFrames(
  target: WsTarget,
  cases: readonly WsFrameCase[],
  report: (outcome: WsOutcome) => void,
): Promise<void> {
  const client = await subscribedSocket(target);
  try {
    for (const frameCase of cases) {
      const from = client.received.length;
      if (typeof frameCase.frame === "string") client.send(frameCase.frame);
      else client.socket.send(Buffer.from(frameCase.frame), { binary: true });
      let got: string;
      try {
        const at = await client.waitFor(
          `the answer to ${frameCase.code}`,
          messageWith({ type: "error" }),
          from,
        );
        got = errorCode(client.received[at]);
      } catch (error) {
        got = `no error message (${error instanceof Error ? error.message : String(error)})`;
      }
      report({ kind: "ws-message", expected: frameCase.code, got, frames: 1 });
    }
  } finally {
    client.close();
  }
}

/** Runs `cases` over `sockets` sockets at a time, a fresh socket every FRAMES_PER_SOCKET. */
export async function playFrameCases(
  target: WsTarget,
  cases: readonly WsFrameCase[],
  sockets: number,
  report: (outcome: WsOutcome) => void,
): Promise<void> {
  const batches: WsFrameCase[][] = [];
  for (let at = 0; at < cases.length; at += FRAMES_PER_SOCKET) {
    batches.push(cases.slice(at, at + FRAMES_PER_SOCKET));
  }
  let next = 0;
  const worker = async () => {
    for (let batch = batches[next++]; batch !== undefined; batch = batches[next++]) {
      await playFrames(target, batch, report);
    }
  };
  await Promise.all(Array.from({ length: sockets }, worker));
}

/** A message over the size limit (close 1009), or invalid messages past the limit (1008). */
export async function playClosing(
  target: WsTarget,
  what: "oversize" | "flood",
  limits: { messageBytes: number; invalidPerMinute: number },
  report: (outcome: WsOutcome) => void,
): Promise<void> {
  const client = await subscribedSocket(target);
  const frames = what === "oversize" ? 1 : limits.invalidPerMinute + 1;
  if (what === "oversize") client.send(`"${"x".repeat(limits.messageBytes)}"`);
  else for (let sent = 0; sent < frames; sent++) client.send("{not json");
  let got: string;
  try {
    const closed = await Promise.race([
      client.closed,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000).unref()),
    ]);
    got = closed === undefined ? "no close within 30 s" : `close ${closed.code}`;
  } finally {
    client.socket.terminate();
  }
  report({
    kind: "ws-close",
    expected: `close ${what === "oversize" ? 1009 : 1008}`,
    got,
    frames,
  });
}

export async function playHandshake(
  target: WsTarget,
  handshake: WsHandshakeCase,
  report: (outcome: WsOutcome) => void,
): Promise<void> {
  let got: string;
  try {
    const client = await within(
      RawWsClient.connect(wsUrl(target, handshake.path), { headers: handshake.headers }),
      "a WebSocket handshake",
      HANDSHAKE_BOUND_MS,
    );
    client.socket.terminate();
    got = "upgraded";
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    got = /HTTP (\d{3})/.exec(message)?.[1] ?? message;
  }
  report({ kind: "ws-handshake", expected: String(handshake.status), got, frames: 1 });
}
