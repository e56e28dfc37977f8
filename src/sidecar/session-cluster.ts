/**
 * What the open sessions ask of a cluster of sidecars, declared here, below the cluster, so that
 * `OpenSessions` never imports it: cluster/sidecar/cluster-sessions.ts implements it, and a
 * sidecar outside a cluster has none (every session is its own to drive). Also the cluster's
 * refusals to let this sidecar drive a session, which the open sessions and the routes answer.
 */
import { ApiError } from "./errors.js";
import type { FeedSource } from "./streams/feed-types.js";

export interface SessionCluster {
  /**
   * Takes the session's lease, so that this sidecar may drive it: `not_driver` (an `ApiError`)
   * when another sidecar holds it. With `directory`, first checks that this sidecar's server
   * serves it: `ServedElsewhereError` when another server does and nobody drives the session.
   */
  lead(sessionId: string, options?: { directory?: string; signal?: AbortSignal }): Promise<void>;
  /** Gives the lease up (the session was released, killed, or could not be opened here). */
  letGo(sessionId: string): Promise<void>;
  /** Before a session is created in `directory`: `ServedElsewhereError` when another server serves it. */
  serveDirectory(directory: string): Promise<void>;
  /** Whether a sidecar other than this one drives the session now. */
  drivenElsewhere(sessionId: string): Promise<boolean>;
  /** The session another sidecar drives, as its streams read it (from the durable feed). */
  remoteSource(sessionId: string): Promise<FeedSource>;
  /** Told when this sidecar no longer drives a session (its lease lost or taken, an append refused). */
  onStoppedDriving(listener: (stopped: { sessionId: string; reason: string }) => void): void;
}

/**
 * The session's directory is served by another OpenCode server than this sidecar's: it is
 * left to the sidecars attached to that server (409 `conflict`, the server named).
 */
export class ServedElsewhereError extends ApiError {
  readonly record: { readonly directory: string; readonly server: string };

  constructor(
    record: { readonly directory: string; readonly server: string },
    mine: string,
    sessionId?: string,
  ) {
    const what = sessionId === undefined ? "" : `session ${sessionId}'s `;
    super(
      "conflict",
      `${what}directory ${record.directory} is served by the OpenCode server at ${record.server} ` +
        `in this cluster; this sidecar is attached to ${mine}: use a sidecar attached to ` +
        `${record.server}`,
      {
        details: {
          ...(sessionId === undefined ? {} : { sessionId }),
          directory: record.directory,
          server: record.server,
        },
      },
    );
    this.record = record;
  }
}

/**
 * Whether `error` is the cluster's refusal to let this sidecar drive a session: another sidecar
 * drives it (`not_driver`), or its directory is another server's (`ServedElsewhereError`). Such
 * a session is still read here, from the durable feed, and its commands go to its driver.
 */
export function refusedToLead(error: unknown): boolean {
  return (
    error instanceof ServedElsewhereError ||
    (error instanceof ApiError && error.code === "not_driver")
  );
}
