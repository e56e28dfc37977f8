/** What a `Session` is made with and what its methods take: its options and their parts. */
import type { Attachment, AttachmentSpec } from "../../backends/attachments.js";
import type { BackendContext, SessionBackend } from "../../backends/backend.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import type { DeltaStats } from "../../events/delta-stats.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import type { Delivery } from "./input.js";
import type { AskTimeout } from "./pending-asks.js";
import type { WatchdogBounds } from "./watchdog.js";

export interface SendOptions {
  /** Required: the server's own default (steer) is never assumed. */
  delivery: Delivery;
  /**
   * Attachments: local paths (inside the session directory), http(s) or data: URLs, or raw
   * data with a MIME type. Checked and read before anything is sent; the transcript keeps
   * their references (paths, URLs), not their bytes.
   */
  files?: AttachmentSpec[];
  agents?: string[];
  signal?: AbortSignal;
}

export interface SessionOptions {
  directory: string;
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /**
   * What `steer` does while a turn runs on a backend that cannot steer (`subprocess`):
   * `queue` (default) makes it the next turn, `supersede` interrupts the running turn and
   * runs it right after.
   */
  steerFallback?: "queue" | "supersede";
  /** Answers asks left unanswered this long (default: they wait for as long as it takes). */
  askTimeout?: AskTimeout;
  /** Largest attachment accepted (default 10 MiB). */
  maxAttachmentBytes?: number;
  /**
   * Where durable events are kept (default: in memory, durable ones only: deltas of ended
   * turns are never kept).
   */
  store?: Store;
  /** Awaited before each send: the server is up (again) and knows the model. */
  beforeSend?: (context: BeforeSendContext) => Promise<void>;
  /** Adopting a session kept in the store: its events so far and the upstream cursor. */
  resume?: { events: readonly CanonicalEvent[]; cursor: string | undefined };
  /**
   * How long a turn waits for lost native streams to come back before it ends `failed`
   * (`connection-lost`); default 3 minutes (`DEFAULT_CONNECTION_LOST_AFTER_MS`). The stall
   * watchdog does not run meanwhile.
   */
  connectionLostAfterMs?: number;
}

/** What `beforeSend` is told about the session since the previous send. */
export interface BeforeSendContext {
  /** The streams lost the server and reached it again: it may have restarted. */
  reconnected: boolean;
  /** The send's own signal: aborting it abandons the wait. */
  signal: AbortSignal | undefined;
  /** The input's attachments: refused (a UsageError) when the model cannot take them. */
  files: readonly Attachment[];
}

/** What a session could not hand out whole, since it started following its upstream session. */
export interface SessionStats {
  deltas: DeltaStats;
}

/** Makes the backend of a session, given what the runtime hands every backend. */
export type BackendFactory = (context: BackendContext) => SessionBackend;
