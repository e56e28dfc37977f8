/** What every part of the sidecar (routes, security, streams) works with. */
import type { RemoteAccess } from "../remote/remote-access.js";
import type { Bridge } from "../runtime/bridge/bridge.js";
import type { Store } from "../store/store.js";
import type { Logger } from "../util/logger.js";
import type { AllowedDirectories } from "./allowed-directories.js";
import type { ClusterPeers } from "./cluster-peers.js";
import type { IdempotentSends } from "./idempotency.js";
import type { SidecarLimits } from "./limits.js";
import type { LiveSnapshots } from "./live-snapshots.js";
import type { SidecarMetrics } from "./metrics.js";
import type { OpenSessions } from "./open-sessions.js";
import type { SentImages } from "./sent-images.js";
import type { Tickets } from "./tickets.js";

/** Where the sidecar listens: its own `Host` and origin are checked against it. */
export interface SidecarAddress {
  /** The host it was bound to (`127.0.0.1`, `::1`, `0.0.0.0`, a name). */
  host: string;
  /** The port it listens on (known once listening; `startSidecar` sets it). */
  port: number;
  /** It serves https (`tls`): its own origins are `https://`. */
  secure?: boolean;
  /**
   * It listens on this Unix socket, not on `host:port`: its one `Host` is then `localhost`
   * (what a client on the socket sends), and no browser origin is its own.
   */
  socketPath?: string;
}

export interface SidecarContext {
  /** The bridge the API drives; its owner (the caller of `startSidecar`) closes it. */
  readonly bridge: Bridge;
  /** The access token (`Authorization: Bearer`). Never logged. */
  readonly token: string;
  /** Origins besides the sidecar's own that browsers may call it from (`--allow-origin`). */
  readonly allowOrigins: readonly string[];
  /** `Host` names besides its own it answers to (`--allow-host`: a reverse proxy's public name). */
  readonly allowHosts?: readonly string[];
  /** Where clients may make sessions: the bridge's directory and `--allow-dir`'s. */
  readonly allowedDirectories: AllowedDirectories;
  readonly tickets: Tickets;
  readonly metrics: SidecarMetrics;
  readonly logger: Logger;
  readonly limits: SidecarLimits;
  readonly sessions: OpenSessions;
  /**
   * In a cluster: the calls between its sidecars (their secret, commands forwarded to a
   * session's driver, delta relays); undefined outside one.
   */
  readonly cluster?: ClusterPeers;
  /** Answers of inputs by idempotency key (in memory; in Postgres in a cluster). */
  readonly idempotency: IdempotentSends;
  /** The latest live state of the sessions read recently, for `GET /v1/sessions/:id/live`. */
  readonly liveSnapshots: LiveSnapshots;
  /** The images of inputs sent here, to show again (in memory, bounded). */
  readonly sentImages: SentImages;
  /** The bridge's store, when the caller has it: kept sessions' seqs and renames. */
  readonly store: Store | undefined;
  readonly address: SidecarAddress;
  /** The certificate and key it serves https with; undefined: plain http. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Where the built web chat is (`/`, `/assets/*`); undefined: the chat is not served. */
  readonly webRoot?: string;
  /**
   * Aborted when the sidecar starts stopping: streams close their clients (code 1012) and
   * long waits give up.
   */
  readonly stopping: AbortSignal;
  /** Remote access through relays, once the sidecar listens (`remote` option); else none. */
  readonly remote?: { access?: RemoteAccess };
}
