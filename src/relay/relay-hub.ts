/**
 * The relay's logic, apart from HTTP: sidecars register on a control socket, clients connect
 * to a sidecar by its id, the sidecar picks each one up with a data socket, and the hub joins
 * the two. The hub only ever sees ids, sizes and times; a frame's content passes through
 * `joinPair` untouched.
 */

import { collectEarlyFrames, joinPair } from "./joined-pair.js";
import { RegisteredSidecar } from "./registered-sidecar.js";
import { RELAY_CLOSE } from "./relay-close-codes.js";
import {
  acceptMessage,
  randomToken,
  registrationMessage,
  SIDECAR_ID_PATTERN,
  sidecarIdOf,
  verifyRelaySignature,
} from "./relay-identity.js";
import type { RelayLimits } from "./relay-limits.js";
import type { RelayLogEvent, RelayLogFields } from "./relay-log.js";
import { Acceptance, parseRelayMessage, Registration } from "./relay-messages.js";
import type { WebSocket } from "./relay-ws.js";

type Log = (event: RelayLogEvent, fields?: RelayLogFields) => void;

export class RelayHub {
  readonly #sidecars = new Map<string, RegisteredSidecar>();

  constructor(
    private readonly limits: RelayLimits,
    private readonly log: Log,
  ) {}

  /** Sidecars online now. */
  get onlineCount(): number {
    let count = 0;
    for (const sidecar of this.#sidecars.values()) if (sidecar.online) count++;
    return count;
  }

  /** A new control socket: challenge, verify the answer, register. */
  onControl(socket: WebSocket, relayHost: string, ip: string): void {
    const challenge = randomToken();
    const timer = setTimeout(
      () => socket.close(RELAY_CLOSE.badRegistration, "registration timed out"),
      this.limits.handshakeTimeoutMs,
    );
    socket.once("close", () => clearTimeout(timer));
    socket.send(JSON.stringify({ type: "challenge", challenge }));
    socket.once("message", (data, isBinary) => {
      clearTimeout(timer);
      const registration = parseRelayMessage(Registration, data, isBinary);
      const publicKey =
        registration === undefined ? undefined : Buffer.from(registration.publicKey, "base64url");
      if (
        registration === undefined ||
        publicKey === undefined ||
        publicKey.length !== 32 ||
        sidecarIdOf(publicKey) !== registration.sidecarId ||
        !verifyRelaySignature(
          publicKey,
          registrationMessage(relayHost, challenge),
          registration.signature,
        )
      ) {
        this.log("refuse", { ip, why: "bad-registration", code: RELAY_CLOSE.badRegistration });
        socket.close(RELAY_CLOSE.badRegistration, "registration refused");
        return;
      }
      this.#register(socket, registration.sidecarId, publicKey, ip);
    });
  }

  #register(socket: WebSocket, id: string, publicKey: Uint8Array, ip: string): void {
    let sidecar = this.#sidecars.get(id);
    if (sidecar?.online !== true && this.onlineCount >= this.limits.maxSidecars) {
      this.log("limit", { sidecar: id, ip, why: "sidecars", code: RELAY_CLOSE.limit });
      socket.close(RELAY_CLOSE.limit, "too many sidecars on this relay");
      return;
    }
    if (sidecar === undefined) {
      sidecar = new RegisteredSidecar(
        id,
        publicKey,
        this.limits.bytesPerSecondPerSidecar,
        this.limits.burstBytesPerSidecar,
      );
      this.#sidecars.set(id, sidecar);
    }
    const older = sidecar.control;
    sidecar.control = socket;
    sidecar.publicKey = publicKey;
    if (older !== undefined) {
      this.log("replace", { sidecar: id, ip });
      older.close(RELAY_CLOSE.replaced, "replaced by a newer connection");
    }
    const registered = sidecar;
    const startedAt = Date.now();
    socket.on("message", (_data, isBinary) => {
      // Nothing else is expected on a control socket yet; binary never.
      if (isBinary) socket.close(RELAY_CLOSE.unsupported, "control messages are text");
    });
    socket.once("close", (code) => {
      this.log("unregister", { sidecar: id, ip, code, durationMs: Date.now() - startedAt });
      if (registered.control !== socket) return; // replaced: the newer one stays
      registered.control = undefined;
      for (const [connectionId, pending] of registered.pending) {
        this.#refusePending(registered, connectionId, pending.socket);
      }
      this.#forgetIfUnused(registered);
    });
    socket.send(JSON.stringify({ type: "registered", sidecarId: id }));
    this.log("register", { sidecar: id, ip });
  }

  /** A client asks for a sidecar: refused alike whether the id is unknown or offline. */
  onConnect(client: WebSocket, sidecarId: string, ip: string): void {
    const sidecar = SIDECAR_ID_PATTERN.test(sidecarId) ? this.#sidecars.get(sidecarId) : undefined;
    const control = sidecar?.control;
    if (sidecar === undefined || control === undefined) {
      this.log("refuse", { ip, why: "not-available", code: RELAY_CLOSE.notAvailable });
      client.close(RELAY_CLOSE.notAvailable, "not available");
      return;
    }
    if (sidecar.pending.size >= this.limits.maxPendingPerSidecar) {
      this.log("limit", { sidecar: sidecarId, ip, why: "pending", code: RELAY_CLOSE.limit });
      client.close(RELAY_CLOSE.limit, "too many waiting connections");
      return;
    }
    if (sidecar.pairs.size + sidecar.pending.size >= this.limits.maxClientsPerSidecar) {
      this.log("limit", { sidecar: sidecarId, ip, why: "clients", code: RELAY_CLOSE.limit });
      client.close(RELAY_CLOSE.limit, "too many connections");
      return;
    }
    const connectionId = randomToken();
    const early = collectEarlyFrames(client, this.limits.maxFrameBytes * 4);
    const timer = setTimeout(() => {
      this.log("refuse", { sidecar: sidecarId, connection: connectionId, ip, why: "no-pickup" });
      this.#refusePending(sidecar, connectionId, client);
      this.#forgetIfUnused(sidecar);
    }, this.limits.pickupTimeoutMs);
    sidecar.pending.set(connectionId, { socket: client, early, ip, timer });
    client.once("close", () => {
      const pending = sidecar.pending.get(connectionId);
      if (pending?.socket !== client) return;
      clearTimeout(pending.timer);
      sidecar.pending.delete(connectionId);
      this.#forgetIfUnused(sidecar);
    });
    control.send(JSON.stringify({ type: "incoming", connectionId }));
    this.log("connect", { sidecar: sidecarId, connection: connectionId, ip });
  }

  /** Whether a data socket for this connection is awaited (checked before its upgrade). */
  awaits(sidecarId: string, connectionId: string): boolean {
    return this.#sidecars.get(sidecarId)?.pending.has(connectionId) === true;
  }

  /** The sidecar's data socket: verify its acceptance, then join it to the waiting client. */
  onAccept(data: WebSocket, relayHost: string, sidecarId: string, connectionId: string): void {
    const timer = setTimeout(
      () => data.close(RELAY_CLOSE.badRegistration, "acceptance timed out"),
      this.limits.handshakeTimeoutMs,
    );
    data.once("close", () => clearTimeout(timer));
    data.once("message", (message, isBinary) => {
      clearTimeout(timer);
      const sidecar = this.#sidecars.get(sidecarId);
      const acceptance = parseRelayMessage(Acceptance, message, isBinary);
      if (
        sidecar === undefined ||
        acceptance === undefined ||
        !verifyRelaySignature(
          sidecar.publicKey,
          acceptMessage(relayHost, sidecarId, connectionId),
          acceptance.signature,
        )
      ) {
        this.log("refuse", { connection: connectionId, why: "bad-acceptance" });
        data.close(RELAY_CLOSE.badRegistration, "acceptance refused");
        return;
      }
      const pending = sidecar.pending.get(connectionId);
      if (pending === undefined) {
        data.close(RELAY_CLOSE.notAvailable, "no such connection");
        return;
      }
      clearTimeout(pending.timer);
      sidecar.pending.delete(connectionId);
      pending.early.stop();
      const pair = joinPair(
        pending.socket,
        pending.early.frames,
        data,
        this.limits,
        sidecar.bucket,
        (end) => {
          sidecar.pairs.delete(pair);
          this.log("close", {
            sidecar: sidecarId,
            connection: connectionId,
            ip: pending.ip,
            ...end,
          });
          this.#forgetIfUnused(sidecar);
        },
      );
      sidecar.pairs.add(pair);
      this.log("join", { sidecar: sidecarId, connection: connectionId, ip: pending.ip });
    });
  }

  /** Drops the pairs without a frame for the idle time. */
  sweepIdle(now = Date.now()): void {
    for (const sidecar of this.#sidecars.values()) {
      for (const pair of sidecar.pairs) {
        if (now - pair.lastFrameAt >= this.limits.idleTimeoutMs) {
          this.log("limit", { sidecar: sidecar.id, why: "idle", code: RELAY_CLOSE.idle });
          pair.close(RELAY_CLOSE.idle, "idle");
        }
      }
    }
  }

  /** Stops the pending timers (the relay closes every socket itself). */
  stop(): void {
    for (const sidecar of this.#sidecars.values()) {
      for (const pending of sidecar.pending.values()) clearTimeout(pending.timer);
    }
  }

  #refusePending(sidecar: RegisteredSidecar, connectionId: string, client: WebSocket): void {
    const pending = sidecar.pending.get(connectionId);
    if (pending !== undefined) clearTimeout(pending.timer);
    sidecar.pending.delete(connectionId);
    client.close(RELAY_CLOSE.notAvailable, "not available");
  }

  #forgetIfUnused(sidecar: RegisteredSidecar): void {
    if (sidecar.unused && this.#sidecars.get(sidecar.id) === sidecar) {
      this.#sidecars.delete(sidecar.id);
    }
  }
}
