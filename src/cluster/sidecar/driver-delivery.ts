/**
 * Delivering a command to whichever sidecar drives its session: look the lease's holder up,
 * call it (`callPeer`) with the cluster's secret, at its address only if `ClusterTrust`
 * accepts it (the address comes from the database), and relay its answer. A holder that answers 409 `not_driver` (it lost
 * the session) or cannot be reached (it died) is looked up again, and the command tried
 * again, for a bounded time: one lease length and one expiry check, about what a failover
 * takes. When the lease expired meanwhile, this sidecar takes the session itself (the usual
 * open: lease, then adoption) and runs the command here (`runHere`).
 */
import { performance } from "node:perf_hooks";
import { ApiError } from "../../sidecar/errors.js";
import { FORWARDED_HEADER } from "../../sidecar/peer-routes.js";
import { sleep } from "../../util/abort.js";
import { ErrorBodySchema } from "../../wire/http.js";
import type { LeaseHolder } from "../lease-rows.js";
import type { ClusterSessions } from "./cluster-sessions.js";
import { callPeer, type PeerAnswer, PeerCallError } from "./peer-call.js";

/** A command as received, to be sent on as it is. */
export interface Command {
  sessionId: string;
  method: string;
  /** Path and query. */
  url: string;
  /** The headers that go with it (content-type); the token and the mark are added. */
  headers: Record<string, string>;
  body: Buffer;
  /** Whether sending it twice does no harm (a send without idempotency key does). */
  repeatable: boolean;
}

export interface DeliveryDeps {
  cluster: ClusterSessions;
  /** Takes the session here if nobody drives it; true when this sidecar drives it now. */
  driveHere: () => Promise<boolean>;
  /** Runs the command on this sidecar (it drives the session). */
  runHere: (command: Command) => Promise<PeerAnswer>;
  signal: AbortSignal;
}

const CONNECT_TIMEOUT_MS = 2_000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Slack over the lease and check periods: a takeover's own statements, timers firing late. */
const RETRY_SLACK_MS = 1_500;

/** The driver's answer to `command` (or this sidecar's, once it took the session over). */
export async function deliverToDriver(command: Command, deps: DeliveryDeps): Promise<PeerAnswer> {
  const { cluster, signal } = deps;
  const { leases } = cluster.member;
  // A failover takes up to a lease length plus one check for expired leases (renewEveryMs).
  const boundMs = leases.ttlMs + leases.renewEveryMs + RETRY_SLACK_MS;
  const until = performance.now() + boundMs;
  let last = "";
  let driver: LeaseHolder | undefined;
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      if (performance.now() >= until) throw unreachable(command, driver, last, boundMs);
      await sleep(Math.min(100 * 2 ** (attempt - 1), 500), signal, "waiting for a driver");
      if (await deps.driveHere()) {
        const answer = await deps.runHere(command);
        if (!isNotDriver(answer)) return answer;
        last = "this sidecar lost the session again";
        continue;
      }
    }
    driver = await leases.holderOf(command.sessionId);
    if (driver === undefined) {
      last = "nobody holds its lease (its driver stopped)";
      continue;
    }
    if (driver.holder === cluster.member.holderId) {
      const answer = await deps.runHere(command);
      if (!isNotDriver(answer)) return answer;
      last = "this sidecar lost the session";
      continue;
    }
    if (driver.address === undefined) throw noAddress(command, driver);
    const { trust } = cluster;
    const origin = trust.peerOrigin(driver.address, driver.holder);
    if (origin === undefined) throw refusedAddress(command, driver);
    try {
      const answer = await callPeer({
        url: `${origin}${command.url}`,
        method: command.method,
        headers: {
          ...command.headers,
          authorization: `Bearer ${trust.secret}`,
          [FORWARDED_HEADER]: cluster.member.holderId,
        },
        body: command.body,
        signal,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        maxAnswerBytes: MAX_ANSWER_BYTES,
        ca: trust.ca,
      });
      if (!isNotDriver(answer)) return answer;
      last = `sidecar ${driver.holder} no longer drives it`;
    } catch (error) {
      if (!(error instanceof PeerCallError)) throw error;
      if (error.delivered && !command.repeatable) throw outcomeUnknown(command, driver, error);
      last = error.message;
    }
  }
}

/** A 409 `not_driver`: the sidecar called does not drive the session (any more). */
export function isNotDriver(answer: PeerAnswer): boolean {
  if (answer.status !== 409) return false;
  try {
    const parsed = ErrorBodySchema.safeParse(JSON.parse(answer.body.toString("utf8")));
    return parsed.success && parsed.data.error.code === "not_driver";
  } catch {
    return false;
  }
}

function where(driver: LeaseHolder): string {
  return `sidecar ${driver.holder}${driver.address === undefined ? "" : ` at ${driver.address}`}`;
}

function noAddress(command: Command, driver: LeaseHolder): ApiError {
  return new ApiError(
    "not_driver",
    `session ${command.sessionId} is driven by sidecar ${driver.holder}, which gave no address ` +
      "to forward commands to: start every sidecar of the cluster with --cluster-address " +
      "(or --port); its events can be followed from any sidecar",
    { details: { sessionId: command.sessionId, driver: driver.holder, address: null } },
  );
}

function refusedAddress(command: Command, driver: LeaseHolder): ApiError {
  return new ApiError(
    "unavailable",
    `session ${command.sessionId} is driven by sidecar ${driver.holder}, whose address in the ` +
      "cluster's leases is refused (see this sidecar's log for why): the command was not " +
      "forwarded; its events can be followed from any sidecar",
    { details: { sessionId: command.sessionId, driver: driver.holder } },
  );
}

function unreachable(
  command: Command,
  driver: LeaseHolder | undefined,
  last: string,
  boundMs: number,
): ApiError {
  return new ApiError(
    "unavailable",
    `the command could not be handed to the driver of session ${command.sessionId} within ` +
      `${(boundMs / 1000).toFixed(1)} s (${last}); try again`,
    {
      details: {
        sessionId: command.sessionId,
        ...(driver === undefined ? {} : { driver: driver.holder, address: driver.address ?? null }),
      },
    },
  );
}

function outcomeUnknown(command: Command, driver: LeaseHolder, error: PeerCallError): ApiError {
  return new ApiError(
    "upstream",
    `the driver of session ${command.sessionId} (${where(driver)}) failed while handling the ` +
      `command (${error.message}): whether it was applied is unknown; read the session, and send ` +
      "inputs with an idempotencyKey, so that sending them again is safe",
    { details: { sessionId: command.sessionId, driver: driver.holder }, cause: error },
  );
}
