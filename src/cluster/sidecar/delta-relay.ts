/**
 * Deltas of the sessions other sidecars drive, relayed to this one, best effort: ONE
 * WebSocket per driver sidecar (`RelaySocket`), shared by every session this sidecar relays
 * from it, opened with the first and closed with the last. The driver is whoever holds the
 * session's lease, at the address kept with it (`--cluster-address`), if `ClusterTrust`
 * accepts that address (it comes from the database: the secret goes nowhere else).
 *
 * A session is relayed while someone here reads it (`follow`, until its signal aborts): when
 * its subscription ends (the driver stopped driving it, died, or the socket broke) the lease
 * is read again and the new driver subscribed, after a bounded backoff; so after a failover
 * the relay follows the new driver. The deltas in flight then are lost (the durable
 * `*.ended` carries the whole value).
 */
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import type { ClusterTrust } from "./cluster-trust.js";
import { type RelayedSession, RelaySocket } from "./relay-socket.js";

/**
 * Retry waits: the first after a subscription that was live, doubling up to the last. Long,
 * because a nudge (the session's feed moved: someone drives it) cuts a wait short, though
 * never below `NUDGED_AFTER_MS` (a driver that keeps refusing is not asked at every event).
 */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 30_000;
const NUDGED_AFTER_MS = 1_000;

/** Where a session's driver is: its lease's holder and address, or none. */
export type DriverOf = (
  sessionId: string,
) => Promise<{ holder: string; address: string | undefined } | undefined>;

/** What a relayed session's reader is told (the socket's `ended` is the relay's own). */
export type RelaySink = Omit<RelayedSession, "ended">;

/** A session being relayed. */
export interface RelayFollowing {
  /** Resolves once its signal aborted and the relay let it go; never rejects. */
  done: Promise<void>;
  /**
   * The session's durable feed moved (someone drives it): a relay waiting to look the driver
   * up again does so now (or once `NUDGED_AFTER_MS` passed since its last try).
   */
  nudge(): void;
}

export class DeltaRelay {
  readonly #driverOf: DriverOf;
  readonly #trust: ClusterTrust;
  readonly #logger: Logger;
  readonly #sockets = new Map<string, RelaySocket>();
  /** Addresses whose handshake was refused (said once at warn: a setting is wrong). */
  readonly #refusedOnce = new Set<string>();

  constructor(options: { driverOf: DriverOf; trust: ClusterTrust; logger: Logger }) {
    this.#driverOf = options.driverOf;
    this.#trust = options.trust;
    this.#logger = options.logger;
  }

  /** Sockets open (or opening) now, one per driver. */
  get sockets(): number {
    return this.#sockets.size;
  }

  /**
   * Relays the deltas of `sessionId` to `sink` until `signal` aborts. A driver that vanishes
   * (or none) is looked up again, with backoff, or at a nudge.
   */
  follow(sessionId: string, sink: RelaySink, signal: AbortSignal): RelayFollowing {
    const pause = new Pause(signal);
    return {
      done: this.#follow(sessionId, sink, signal, pause),
      nudge: () => pause.nudge(),
    };
  }

  async #follow(
    sessionId: string,
    sink: RelaySink,
    signal: AbortSignal,
    pause: Pause,
  ): Promise<void> {
    let waitMs = RETRY_FIRST_MS;
    while (!signal.aborted) {
      let wasLive = false;
      try {
        wasLive = await this.#relayOnce(sessionId, sink, signal);
      } catch (error) {
        if (signal.aborted) return;
        this.#logger.debug("relaying a session's deltas failed; trying again", {
          sessionId,
          error: describeError(error),
        });
      }
      if (wasLive) waitMs = RETRY_FIRST_MS;
      await pause.wait(waitMs, Math.min(waitMs, NUDGED_AFTER_MS));
      waitMs = Math.min(waitMs * 2, RETRY_MAX_MS);
    }
  }

  /** One subscription at the current driver, until it ends; whether it was live. */
  async #relayOnce(sessionId: string, sink: RelaySink, signal: AbortSignal): Promise<boolean> {
    const driver = await this.#driverOf(sessionId);
    if (driver?.address === undefined) return false; // nobody drives it, or unreachable
    const origin = this.#trust.peerOrigin(driver.address, driver.holder);
    if (origin === undefined) return false; // refused (said once): looked up again later
    const socket = this.#socketTo(origin);
    socket.acquire();
    let live = false;
    let session: RelayedSession | undefined;
    let stop: (() => void) | undefined;
    const why = await new Promise<string>((resolve) => {
      session = {
        delta: (event) => sink.delta(event),
        live: () => {
          live = true;
          sink.live();
        },
        lost: () => sink.lost(),
        ended: resolve,
      };
      stop = () => resolve("stopped");
      signal.addEventListener("abort", stop, { once: true });
      socket.opened(signal).then(
        () => {
          if (!signal.aborted && session !== undefined) socket.subscribe(sessionId, session);
        },
        (error: unknown) => resolve(describeError(error)),
      );
    });
    if (stop !== undefined) signal.removeEventListener("abort", stop);
    if (session !== undefined) socket.unsubscribe(sessionId, session);
    socket.release();
    if (!signal.aborted) {
      this.#logger.debug("a relayed session's subscription ended", {
        sessionId,
        driver: driver.holder,
        why,
      });
      if (why.includes("refused the relay's handshake") && !this.#refusedOnce.has(origin)) {
        this.#refusedOnce.add(origin);
        this.#logger.warn(
          "another sidecar refused this one's delta relay: every sidecar of a cluster needs the " +
            "same OCB_CLUSTER_SECRET, and a --cluster-address the driver answers to",
          { address: origin },
        );
      }
    }
    return live;
  }

  /** The socket to `address`: the open one, or a new one. */
  #socketTo(address: string): RelaySocket {
    const current = this.#sockets.get(address);
    if (current !== undefined && !current.closed) return current;
    const socket: RelaySocket = new RelaySocket(address, this.#trust, this.#logger, () => {
      if (this.#sockets.get(address) === socket) this.#sockets.delete(address);
    });
    this.#sockets.set(address, socket);
    return socket;
  }
}

/** The wait between two tries: `ms`, cut short by a nudge or the signal; never rejects. */
class Pause {
  readonly #signal: AbortSignal;
  #nudged: (() => void) | undefined;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  /** Waits `ms`, or until a nudge once `floorMs` passed, or until the signal aborts. */
  wait(ms: number, floorMs: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#signal;
      if (signal.aborted) {
        resolve();
        return;
      }
      const started = Date.now();
      const done = () => {
        clearTimeout(timer);
        this.#nudged = undefined;
        signal.removeEventListener("abort", done);
        resolve();
      };
      let timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.#nudged = () => {
        clearTimeout(timer);
        timer = setTimeout(done, Math.max(0, started + floorMs - Date.now()));
      };
    });
  }

  nudge(): void {
    this.#nudged?.();
  }
}
