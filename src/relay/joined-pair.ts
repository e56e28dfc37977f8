/**
 * A client socket joined to a sidecar's data socket: every binary frame from one is sent to
 * the other unchanged and in order, and closing one closes the other. The relay never looks
 * into a frame; it counts its bytes, paces them (two token buckets: the connection's and the
 * sidecar's) and stops reading from a sender whose receiver has too much buffered.
 */

import { passableCloseCode, RELAY_CLOSE } from "./relay-close-codes.js";
import type { RelayLimits } from "./relay-limits.js";
import type { WebSocket } from "./relay-ws.js";
import { TokenBucket } from "./token-bucket.js";

export interface PairEnd {
  /** Client to sidecar bytes, sidecar to client bytes. */
  bytesIn: number;
  bytesOut: number;
  durationMs: number;
  /** The code the first side closed with. */
  code: number;
}

export interface JoinedPair {
  readonly lastFrameAt: number;
  /** Closes both sockets with `code`. */
  close(code: number, reason: string): void;
}

/** Frames a pending client sent before the sidecar picked it up, held until the join. */
export interface EarlyFrames {
  readonly frames: Buffer[];
  /** Stops collecting; the frames stay in `frames`. */
  stop(): void;
}

/**
 * Collects a pending client's binary frames (up to `maxBytes`, else it is closed for a limit);
 * a text frame closes it (the channel is binary ciphertext).
 */
export function collectEarlyFrames(client: WebSocket, maxBytes: number): EarlyFrames {
  const frames: Buffer[] = [];
  let bytes = 0;
  const onMessage = (data: Buffer, isBinary: boolean): void => {
    if (!isBinary) {
      client.close(RELAY_CLOSE.unsupported, "binary frames only");
      return;
    }
    bytes += data.length;
    if (bytes > maxBytes) {
      client.close(RELAY_CLOSE.limit, "too much before pickup");
      return;
    }
    frames.push(data);
  };
  client.on("message", onMessage);
  return { frames, stop: () => client.off("message", onMessage) };
}

export function joinPair(
  client: WebSocket,
  early: readonly Buffer[],
  data: WebSocket,
  limits: RelayLimits,
  sidecarBucket: TokenBucket,
  onEnd: (end: PairEnd) => void,
): JoinedPair {
  const startedAt = Date.now();
  const connectionBucket = new TokenBucket(
    limits.bytesPerSecondPerClient,
    limits.burstBytesPerClient,
  );
  const stats = { bytesIn: 0, bytesOut: 0 };
  const timers = new Set<NodeJS.Timeout>();
  let lastFrameAt = startedAt;
  let ended = false;

  const resumeWhenDrained = (from: WebSocket, to: WebSocket, waitMs: number): void => {
    from.pause();
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        if (ended) return;
        if (to.bufferedAmount > limits.maxBufferedBytes) resumeWhenDrained(from, to, 20);
        else from.resume();
      },
      Math.max(waitMs, 1),
    );
    timers.add(timer);
  };

  const send = (from: WebSocket, to: WebSocket, frame: Buffer, counter: "bytesIn" | "bytesOut") => {
    if (to.readyState !== to.OPEN) return;
    lastFrameAt = Date.now();
    stats[counter] += frame.length;
    to.send(frame, { binary: true });
    const wait = Math.max(connectionBucket.take(frame.length), sidecarBucket.take(frame.length));
    if (wait > 0 || to.bufferedAmount > limits.maxBufferedBytes) resumeWhenDrained(from, to, wait);
  };

  const forward = (from: WebSocket, to: WebSocket, counter: "bytesIn" | "bytesOut"): void => {
    from.on("message", (frame: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        from.close(RELAY_CLOSE.unsupported, "binary frames only");
        return;
      }
      send(from, to, frame, counter);
    });
  };

  const end = (code: number): void => {
    if (ended) return;
    ended = true;
    for (const timer of timers) clearTimeout(timer);
    // A paused socket would not read the peer's close frame: resume both before closing.
    client.resume();
    data.resume();
    const passed = passableCloseCode(code);
    for (const socket of [client, data]) {
      if (socket.readyState === socket.OPEN) socket.close(passed, "peer closed");
    }
    onEnd({ ...stats, durationMs: Date.now() - startedAt, code });
  };

  forward(client, data, "bytesIn");
  forward(data, client, "bytesOut");
  client.once("close", (code) => end(code));
  data.once("close", (code) => end(code));
  for (const frame of early) send(client, data, frame, "bytesIn");
  client.resume();
  return {
    get lastFrameAt() {
      return lastFrameAt;
    },
    close(code, reason) {
      for (const socket of [client, data]) {
        socket.resume();
        if (socket.readyState === socket.OPEN) socket.close(code, reason);
      }
    },
  };
}
