/**
 * What a `Bridge` is started with, and the parsing of the two options the CLI takes as text
 * (the backend's name and a `provider/model`).
 */
import { BACKEND_KINDS, type BackendKind } from "../../backends/backend.js";
import { UsageError } from "../../errors.js";
import type { ModelRef } from "../../events/canonical.js";
import type { StartOpencodeOptions } from "../../server/start-opencode.js";
import type { StoreKeySource } from "../../store/encryption/store-keys.js";
import type { Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import type { AskTimeout } from "../session/session.js";
import type { WatchdogBounds } from "../session/watchdog.js";
import type { ModelServerFactory } from "./model-server.js";
import type { PermissionPreset } from "./permission-presets.js";
import type { ReconnectPolicy } from "./reconnect-policy.js";

export interface BridgeOptions {
  /** Default project directory of sessions. */
  directory: string;
  /**
   * How turns run (default `serve`, or the `OCB_BACKEND` environment variable):
   * `serve` (the `/api` surface), `serve-legacy` (`/session` + `/event`, every 1.x server),
   * `subprocess` (one `opencode run` per turn, no server). See `Session.capabilities`.
   */
  backend?: BackendKind;
  /** `subprocess` only: allow permission asks the config does not deny (`--auto`); default reject. */
  autoApprove?: boolean;
  /** What `steer` does while a turn runs on a backend that cannot steer (default `queue`). */
  steerFallback?: "queue" | "supersede";
  /**
   * Which tool calls wait for an answer (`session.replyPermission`): `ask` (edits and shell
   * commands), `allow-all`, `read-only` (edits and shell commands refused), or an OpenCode
   * `permission` config object. Default: the server's own config.
   */
  permissions?: PermissionPreset | Record<string, unknown>;
  /** Answers asks nobody answered in time (default: they wait). */
  askTimeout?: AskTimeout;
  /**
   * After a refused permission the model is told and the run goes on (default true; OpenCode's
   * `experimental.continue_loop_on_deny`). On 1.18.33's `/api` surface only a refusal with a
   * `message` goes on; one without stops the run (the turn ends `interrupted`). Merged into
   * `config.experimental`: when only the config sets `continue_loop_on_deny` its value is used;
   * both set and disagreeing is a UsageError.
   */
  continueAfterReject?: boolean;
  /**
   * A model server to run beside OpenCode, configured into it, its model the default (for
   * example `demoModelServer` from `opencode-bridge/testing`: the scripted model, provider `demo`).
   * Not with `attach`.
   */
  modelServer?: ModelServerFactory;
  /** Default model of new sessions (else the `modelServer`'s, else the config's `model`). */
  model?: ModelRef;
  /** OpenCode config for a managed server. */
  config?: Record<string, unknown>;
  /**
   * Options for the managed server (ignored with `attach`, but for `sandbox`, which it refuses;
   * `binary`, `env`, `passEnv`, `inheritUserConfig` and `sandbox` also apply to `subprocess`).
   */
  server?: Omit<StartOpencodeOptions, "config" | "directory" | "logger">;
  /** Use a server someone else runs instead of starting one. */
  attach?: { url: string; password?: string };
  logger?: Logger;
  watchdog?: Partial<WatchdogBounds>;
  /**
   * How long a running turn waits for its session's lost streams to come back before it ends
   * `failed` (`connection-lost`); default 3 minutes. The streams themselves reconnect for as
   * long as the session is open (see `Session.connection`).
   */
  connectionLostAfterMs?: number;
  /**
   * How the session streams pace their reconnect attempts while the server is unreachable:
   * `initialDelayMs` (default 250 ms) doubling up to `maxDelayMs` (default 10 s), ±20 %. They
   * never give up; a shorter pace finds a server that came back sooner, at the cost of more
   * attempts while it is away. Out of range: `Bridge.start` throws `UsageError`.
   */
  reconnect?: ReconnectPolicy;
  /**
   * Where transcripts and session records are kept: a `Store`, a file path, or `:memory:`
   * (default: `store.db` in the user's data directory, `$XDG_DATA_HOME/opencode-bridge/`).
   */
  store?: Store | string;
  /**
   * The keys of an encrypted store `store` names by path or URL (see `OpenStoreOptions.storeKey`;
   * docs/security.md). Ignored when `store` is a `Store`, opened already.
   */
  storeKey?: StoreKeySource | undefined;
  /** Releases a session left idle this long (its upstream session is kept; default: never). */
  idleReleaseMs?: number;
  /** Bound on the /api model catalog listing the model before a session's first prompt (30 s). */
  modelReadyTimeoutMs?: number;
  /** Aborts `Bridge.start` (what it started so far is stopped; it rejects with AbortError). */
  signal?: AbortSignal;
}

/** Parses `provider/model` (the model id may contain further slashes). */
export function parseModel(text: string): ModelRef {
  const slash = text.indexOf("/");
  if (slash <= 0 || slash === text.length - 1) {
    throw new UsageError(
      `a model is written provider/model (for example demo/demo-1), got "${text}"`,
    );
  }
  return { providerID: text.slice(0, slash), modelID: text.slice(slash + 1) };
}

/** The backend named by `option`, else by `OCB_BACKEND`, else `serve`; anything else is refused. */
export function chooseBackend(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): BackendKind {
  const value = option ?? (env.OCB_BACKEND?.trim() || undefined) ?? "serve";
  if ((BACKEND_KINDS as readonly string[]).includes(value)) return value as BackendKind;
  const from = option === undefined ? "OCB_BACKEND" : "backend";
  throw new UsageError(
    `${from} must be one of ${BACKEND_KINDS.join(", ")}, got ${JSON.stringify(value)}`,
  );
}
