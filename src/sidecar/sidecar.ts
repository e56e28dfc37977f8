/**
 * `startSidecar`: the bridge's API on a port. The caller owns the bridge (`ocb serve` starts
 * one and stops it after the sidecar); `close()` stops the sidecar only: clients' streams end
 * with a close frame that tells them to resume, running turns are left to the bridge's store.
 */

import type { ClusterMember } from "../cluster/cluster-member.js";
import type { ClusterTrustOptions } from "../cluster/sidecar/cluster-trust.js";
import { SidecarCluster } from "../cluster/sidecar/sidecar-cluster.js";
import { UsageError } from "../errors.js";
import {
  defaultRelayIdentityPath,
  loadOrCreateRelayIdentity,
} from "../relay/relay-identity-file.js";
import { defaultPairedDevicesPath, PairedDevices } from "../remote/paired-devices.js";
import { RemoteAccess } from "../remote/remote-access.js";
import { remoteIdentityOf } from "../remote/remote-identity.js";
import type { Bridge } from "../runtime/bridge/bridge.js";
import type { Store } from "../store/store.js";
import type { TunnelTarget } from "../tunnel/tunnel-server.js";
import { describeError } from "../util/describe-error.js";
import { listenError } from "../util/listen-error.js";
import { type Logger, silentLogger } from "../util/logger.js";
import { defaultWebRoot } from "../web-files/web-root.js";
import { AllowedDirectories } from "./allowed-directories.js";
import { buildApp } from "./app.js";
import type { SidecarAddress, SidecarContext } from "./context.js";
import { Idempotency, type IdempotentSends } from "./idempotency.js";
import { resolveLimits, type SidecarLimits } from "./limits.js";
import { LiveSnapshots } from "./live-snapshots.js";
import { directoriesAreLocal } from "./local-directories.js";
import { type LogFormat, lineLogger } from "./log-lines.js";
import { SidecarMetrics } from "./metrics.js";
import { OpenSessions } from "./open-sessions.js";
import { redactingLogger } from "./redact.js";
import { weakSecretProblem } from "./secret-rules.js";
import { isLoopbackHost } from "./security.js";
import { SentImages } from "./sent-images.js";
import type { SidecarApp } from "./sidecar-app.js";
import { prepareSocketPath, restrictSocket } from "./socket-path.js";
import { Tickets } from "./tickets.js";

export interface SidecarOptions {
  bridge: Bridge;
  /** The access token every request needs (`Authorization: Bearer`); at least 16 characters. */
  token: string;
  /** Default `127.0.0.1`. Anything but loopback exposes the API to the network. */
  host?: string;
  /** Default 0: a free port (the answer's `url` says which). */
  port?: number;
  /**
   * Listen on this Unix socket instead of `host:port` (made 0600; its directory must be the
   * user's alone): no port at all, for a sidecar reached only by local clients
   * (`unixSocketTransport`, ocb's commands) and by devices through `remote`'s relays.
   */
  socketPath?: string;
  /** Origins besides the sidecar's own that browsers may call it from. */
  allowOrigins?: string[];
  /** `Host` names besides its own (`name` or `name:port`), for a reverse proxy in front. */
  allowHosts?: string[];
  /**
   * Directories besides the bridge's own in which clients may make sessions, each with what
   * lies under it (`--allow-dir`); by default only the bridge's directory and what is under it.
   */
  allowDirectories?: string[];
  /** Where the sidecar logs (one line per request and per turn end); silent by default. */
  logger?: Logger;
  /** Without `logger`: log lines on stderr, as text or JSON lines. */
  logFormat?: LogFormat;
  limits?: Partial<SidecarLimits>;
  /** The bridge's store, when the caller opened it: kept sessions' seqs, renames. */
  store?: Store;
  /** Prometheus metrics to report into (default: new ones). */
  metrics?: SidecarMetrics;
  /**
   * Serve the web chat at `/` (default true): the page and its assets need no token, only the
   * Host and Origin checks. Not built yet, `/` says how to build it.
   */
  web?: boolean;
  /** Where the built chat is (default: the package's own `dist/web`). */
  webRoot?: string;
  /**
   * Join this sidecar to a cluster (docs/deployment.md): sessions are leased before they are
   * driven, sessions other sidecars drive are followed from the durable feed, and expired
   * ones are taken over. The bridge must use `cluster.store` (its appends fenced). The caller
   * closes it, after the bridge.
   */
  cluster?: ClusterMember;
  /**
   * With `cluster`, required: the secret the sidecars of the cluster call each other with
   * (not `token`), and how their https certificates are verified (docs/deployment.md).
   */
  clusterTrust?: ClusterTrustOptions;
  /** Serve https with this certificate and key (PEM): the URL is then `https://`. */
  tls?: SidecarTls;
  /**
   * Be reachable through these relays too (docs/remote-access.md): devices paired with
   * `POST /v1/remote/pairings` reach the API end-to-end encrypted, and nothing here listens
   * beyond `host`.
   */
  remote?: SidecarRemoteOptions;
}

export interface SidecarRemoteOptions {
  /** ws:// or wss:// base URLs of relays (`ocb relay`), each kept registered. */
  relays: string[];
  /** The identity file (default `relay-identity.json` in the bridge's data directory). */
  identityPath?: string;
  /** The paired devices file (default `paired-devices.json` beside it). */
  devicesPath?: string;
  /** The page a pairing link opens (default: the first relay's address as https). */
  linkBase?: string;
  /** CA certificate(s), PEM, of relays with a self-signed certificate. */
  ca?: string;
}

/** The certificate (with its chain) and private key the sidecar serves https with, PEM. */
export interface SidecarTls {
  cert: string;
  key: string;
}

export interface Sidecar {
  /**
   * `http://host:port` (`https://` with `tls`), without a trailing slash; on a Unix socket
   * `http://localhost`, the base URL to give a client of `socketPath`.
   */
  readonly url: string;
  /** The Unix socket it listens on (`options.socketPath`, absolute), if it does. */
  readonly socketPath?: string;
  readonly token: string;
  readonly metrics: SidecarMetrics;
  /**
   * Stops listening, closes the clients' streams (code 1012, "resume from your last seq") and
   * stops following sessions; the bridge is the caller's to close. Idempotent.
   */
  close(reason?: string): Promise<void>;
}

export { MIN_TOKEN_LENGTH } from "./secret-rules.js";

/** A sidecar's context, and its part in a cluster when it is in one. */
export interface AssembledSidecar {
  ctx: SidecarContext;
  /** What the context's parts were given of the cluster, as one object (undefined outside one). */
  cluster: SidecarCluster | undefined;
}

/** Builds the context of a sidecar (exported for tests that `inject()` without listening). */
export function createSidecarContext(
  options: SidecarOptions,
  stopping: AbortSignal,
): SidecarContext {
  return assembleSidecar(options, stopping).ctx;
}

/**
 * Builds the context of a sidecar, joining the cluster's parts to it in a cluster (exported for
 * tests of a cluster that `inject()` without listening).
 */
export function assembleSidecar(options: SidecarOptions, stopping: AbortSignal): AssembledSidecar {
  checkSocketOptions(options);
  if (options.remote !== undefined && options.tls !== undefined) {
    throw new RangeError(
      "remote access (relays) and tls are not served together yet: devices through a relay are encrypted end to end already; drop one",
    );
  }
  const weakToken = weakSecretProblem("the token", options.token);
  if (weakToken !== undefined) throw new RangeError(weakToken);
  const secret = clusterSecretOf(options);
  const limits = resolveLimits(options.limits);
  const metrics = options.metrics ?? new SidecarMetrics();
  const logger = redactingLogger(chosenLogger(options), [
    options.token,
    ...(secret === undefined ? [] : [secret]),
  ]);
  // `secret` is set whenever `cluster` is (clusterSecretOf throws otherwise).
  const cluster =
    options.cluster === undefined || secret === undefined
      ? undefined
      : new SidecarCluster(options.cluster, {
          store: options.store ?? options.cluster.store,
          trust: { ...options.clusterTrust, secret },
          logger,
        });
  const ctx: SidecarContext = {
    bridge: options.bridge,
    token: options.token,
    allowOrigins: [...(options.allowOrigins ?? [])],
    allowHosts: [...(options.allowHosts ?? []), ...clusterHost(options.cluster)],
    allowedDirectories: new AllowedDirectories(
      // A stand-in bridge may have no directory: only the ones given are allowed then.
      [options.bridge.directory, ...(options.allowDirectories ?? [])].filter(
        (directory): directory is string => typeof directory === "string",
      ),
      directoriesAreLocal(options.bridge),
    ),
    tickets: new Tickets({ ttlMs: limits.ticketTtlMs, max: limits.maxTickets }),
    metrics,
    logger,
    limits,
    sessions: new OpenSessions(options.bridge, metrics, logger, options.store, cluster?.sessions),
    ...(cluster === undefined ? {} : { cluster }),
    idempotency: sendKeys(cluster, limits, logger, stopping),
    liveSnapshots: new LiveSnapshots(),
    sentImages: new SentImages(limits.sentImageBytes),
    store: options.store,
    address:
      options.socketPath === undefined
        ? {
            host: options.host ?? "127.0.0.1",
            port: options.port ?? 0,
            ...(options.tls === undefined ? {} : { secure: true }),
          }
        : { host: SOCKET_HOST, port: 0, socketPath: options.socketPath },
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    ...(options.web === false ? {} : { webRoot: options.webRoot ?? defaultWebRoot() }),
    stopping,
    remote: {},
  };
  return { ctx, cluster };
}

/** The `Host` a client sends over a Unix socket (Node's default there), and the URL's. */
const SOCKET_HOST = "localhost";

/** A Unix socket replaces the TCP address, and is not served with what needs one. */
function checkSocketOptions(options: SidecarOptions): void {
  if (options.socketPath === undefined) return;
  const conflicting = [
    options.host === undefined ? undefined : "host",
    options.port === undefined ? undefined : "port",
    options.tls === undefined ? undefined : "tls",
    options.cluster === undefined ? undefined : "cluster",
  ].filter((name) => name !== undefined);
  if (conflicting.length > 0) {
    throw new RangeError(
      `a sidecar on a Unix socket (socketPath) listens on no TCP address: drop ${conflicting.join(", ")} (a cluster's sidecars call each other over TCP)`,
    );
  }
}

/**
 * The cluster secret, checked (undefined outside a cluster). It must differ from the token: a
 * client's token must not make it a sidecar of the cluster, nor the secret a client.
 */
function clusterSecretOf(options: SidecarOptions): string | undefined {
  if (options.cluster === undefined) return undefined;
  const secret = options.clusterTrust?.secret;
  if (secret === undefined) {
    throw new RangeError(
      "a sidecar in a cluster needs clusterTrust.secret, the secret its sidecars call each " +
        "other with (ocb serve: OCB_CLUSTER_SECRET or --cluster-secret-file); generate one " +
        "(openssl rand -hex 32) and give every sidecar of the cluster the same",
    );
  }
  const weak = weakSecretProblem("the cluster secret", secret);
  if (weak !== undefined) throw new RangeError(weak);
  if (secret === options.token) {
    throw new RangeError(
      "the cluster secret must differ from the clients' token (OCB_TOKEN): a client's token " +
        "must not let it call as a sidecar; generate another (openssl rand -hex 32)",
    );
  }
  return secret;
}

/**
 * The host of this sidecar's cluster address: the name the other sidecars call it by when
 * they forward commands (a DNS name is refused as a Host otherwise, against rebinding).
 */
function clusterHost(cluster: ClusterMember | undefined): string[] {
  const address = cluster?.leases.address;
  if (address === undefined) return [];
  try {
    return [new URL(address).host];
  } catch {
    return [];
  }
}

/** Sends' idempotency keys: in memory, or in Postgres for the whole cluster. */
function sendKeys(
  cluster: SidecarCluster | undefined,
  limits: SidecarLimits,
  logger: Logger,
  stopping: AbortSignal,
): IdempotentSends {
  if (cluster === undefined) {
    return new Idempotency({ ttlMs: limits.idempotencyTtlMs, max: limits.maxIdempotencyKeys });
  }
  return cluster.sends({
    ttlMs: limits.idempotencyTtlMs,
    // The first send's own call is bounded by requestTimeoutMs: past it (and some slack for
    // recording its answer), no answer will come.
    abandonAfterMs: limits.requestTimeoutMs + 10_000,
    logger,
    stopping,
  });
}

function chosenLogger(options: SidecarOptions): Logger {
  if (options.logger !== undefined) return options.logger;
  if (options.logFormat === undefined) return silentLogger;
  return lineLogger(options.logFormat, (line) => process.stderr.write(line));
}

/** Starts the sidecar on `host:port`. */
export async function startSidecar(options: SidecarOptions): Promise<Sidecar> {
  const stop = new AbortController();
  const { ctx, cluster } = assembleSidecar(options, stop.signal);
  const app = buildApp(ctx);
  let url: string;
  try {
    url = await listen(app, ctx.address, options.tls !== undefined);
  } catch (error) {
    // Nothing was served: what the context started stops here, and the error says what to do.
    stop.abort(new Error("the sidecar could not listen"));
    ctx.sessions.close();
    await app.close().catch(() => {});
    throw error;
  }
  const takingOver = takeOverIn(ctx, cluster, options, stop.signal);
  if (options.remote !== undefined) {
    try {
      remoteSlot(ctx).access = startRemoteAccess(options.remote, ctx);
    } catch (error) {
      stop.abort(new Error("the sidecar could not start its remote access"));
      ctx.sessions.close();
      await takingOver;
      await app.close().catch(() => {});
      throw error;
    }
  }
  ctx.logger.info("sidecar listening", {
    url,
    ...(ctx.address.socketPath === undefined
      ? { loopback: isLoopbackHost(ctx.address.host) }
      : { socketPath: ctx.address.socketPath }),
    backend: options.bridge.backend,
  });
  let closing: Promise<void> | undefined;
  return {
    url,
    ...(ctx.address.socketPath === undefined ? {} : { socketPath: ctx.address.socketPath }),
    token: options.token,
    metrics: ctx.metrics,
    close(reason = "sidecar stopping") {
      closing ??= (async () => {
        ctx.logger.info("sidecar stopping", { reason });
        stop.abort(new Error(reason));
        ctx.sessions.close();
        await ctx.remote?.access?.close();
        await takingOver;
        // Streams end themselves on the abort; an answer a client stopped reading would hold
        // the close forever: past the grace, its connection is cut.
        const cut = setTimeout(() => app.server.closeAllConnections(), ctx.limits.closeGraceMs);
        try {
          await app.close();
        } finally {
          clearTimeout(cut);
        }
      })();
      return closing;
    },
  };
}

function remoteSlot(ctx: SidecarContext): { access?: RemoteAccess } {
  if (ctx.remote === undefined)
    throw new Error("the sidecar's context was assembled without its remote slot");
  return ctx.remote;
}

/**
 * Listens where `address` says (its port, or its socket path made absolute, set once known);
 * the URL a client calls it by. Errors say what to do.
 */
async function listen(app: SidecarApp, address: SidecarAddress, secure: boolean): Promise<string> {
  if (address.socketPath !== undefined) {
    const path = await prepareSocketPath(address.socketPath);
    address.socketPath = path;
    try {
      await app.listen({ path });
    } catch (error) {
      throw new UsageError(
        `the sidecar cannot listen on the socket ${path}: ${describeError(error)}`,
        { cause: error },
      );
    }
    restrictSocket(path);
    return `http://${address.host}`;
  }
  try {
    await app.listen({ host: address.host, port: address.port });
  } catch (error) {
    throw listenError(error, address.host, address.port);
  }
  address.port = listeningPort(app);
  return `${secure ? "https" : "http"}://${urlHost(address.host)}:${address.port}`;
}

/**
 * Remote access to this sidecar's own address: the tunnel sends devices' requests to it over
 * its socket, or loopback (a wildcard address is reached on loopback), with its token.
 */
function startRemoteAccess(remote: SidecarRemoteOptions, ctx: SidecarContext): RemoteAccess {
  return new RemoteAccess({
    relays: remote.relays,
    identity: remoteIdentityOf(
      loadOrCreateRelayIdentity(remote.identityPath ?? defaultRelayIdentityPath()),
    ),
    devices: PairedDevices.load(
      remote.devicesPath ?? defaultPairedDevicesPath(remote.identityPath),
    ),
    target: ownTarget(ctx.address),
    token: ctx.token,
    logger: ctx.logger,
    ...(remote.linkBase === undefined ? {} : { linkBase: remote.linkBase }),
    ...(remote.ca === undefined ? {} : { ca: remote.ca }),
  });
}

function ownTarget(address: SidecarAddress): TunnelTarget {
  if (address.socketPath !== undefined) return { socketPath: address.socketPath };
  const host =
    address.host === "0.0.0.0" ? "127.0.0.1" : address.host === "::" ? "::1" : address.host;
  return { host, port: address.port };
}

function listeningPort(app: SidecarApp): number {
  const address = app.server.address();
  if (address === null || typeof address === "string") {
    throw new Error(`the sidecar is not listening on a TCP port (${String(address)})`);
  }
  return address.port;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** In a cluster, the failover loop (until the sidecar stops); otherwise nothing. */
function takeOverIn(
  ctx: SidecarContext,
  cluster: SidecarCluster | undefined,
  options: SidecarOptions,
  stopping: AbortSignal,
): Promise<void> {
  if (cluster === undefined) return Promise.resolve();
  const store = options.store ?? cluster.member.store;
  return cluster.takeOverExpired({ sessions: ctx.sessions, store, logger: ctx.logger }, stopping);
}
