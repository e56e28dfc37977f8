/**
 * `ocb serve`: the sidecar. Starts a bridge (a managed OpenCode server by default; `--demo`
 * behind the scripted model, offline) and serves its HTTP + WebSocket API on 127.0.0.1 until
 * Ctrl-C or SIGTERM, which stop the sidecar (clients are told to resume) and the bridge: turns
 * still running are left to the store and the server's keeper, for the next `ocb serve` on the
 * same store to adopt; with none, the server stops too. A second one kills the server's
 * process group and exits 130 at once.
 */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, Option } from "commander";
import { BACKEND_KINDS, type BackendKind } from "../../backends/backend.js";
import { UsageError } from "../../errors.js";
import { Bridge, type LeftRunning } from "../../runtime/bridge/bridge.js";
import { chooseBackend, parseModel } from "../../runtime/bridge/bridge-options.js";
import {
  PERMISSION_PRESETS,
  type PermissionPreset,
} from "../../runtime/bridge/permission-presets.js";
import { LOG_FORMATS, type LogFormat, lineLogger } from "../../sidecar/log-lines.js";
import type { SidecarMetrics } from "../../sidecar/metrics.js";
import type { Sidecar } from "../../sidecar/sidecar.js";
import { openStore } from "../../store/open-store.js";
import { describeError } from "../../util/describe-error.js";
import { choiceOption } from "../choice-option.js";
import { readConfigFile } from "../config-file.js";
import { type DemoDirectory, demoDirectory } from "../demo-directory.js";
import { demoModelServer } from "../demo-model.js";
import { handleInterrupts } from "../interrupts.js";
import { OPENCODE_DATA_OPTION_HELP, opencodeDataDir } from "../opencode-data.js";
import { addPassEnvOption } from "../pass-env.js";
import { addSandboxOptions, type SandboxFlags, sandboxOf } from "../sandbox-option.js";
import {
  addClusterOptions,
  attachedServer,
  type ClusterServeOptions,
  clusterTrustOf,
  joinClusterIfAsked,
} from "../serve-cluster.js";
import {
  type AnnouncedServe,
  announceServe,
  type ServeConnectionFields,
} from "../serve-connection-file.js";
import {
  addRelayOptions,
  type RelayServeOptions,
  relayFilesForSandbox,
  remoteOf,
} from "../serve-relay.js";
import { type SocketServeOptions, socketDirectoryToHide, socketOf } from "../serve-socket.js";
import { addTlsOptions, type TlsServeOptions, tlsOf } from "../serve-tls.js";
import {
  STORE_KEY_FILE_HELP,
  STORE_OPTION_HELP,
  storeKeyring,
  storeSpec,
} from "../store-access.js";

interface ServeOptions
  extends ClusterServeOptions,
    SandboxFlags,
    TlsServeOptions,
    RelayServeOptions,
    SocketServeOptions {
  dir?: string;
  model?: string;
  config?: string;
  backend?: BackendKind;
  store?: string;
  storeKeyFile?: string;
  port?: string;
  host: string;
  demo?: boolean;
  allowOrigin: string[];
  passEnv: string[];
  allowHost: string[];
  allowDir: string[];
  web: boolean;
  logFormat: LogFormat;
  permissions?: PermissionPreset;
  startupTimeout: string;
  opencodeData?: string;
}

export function registerServeCommand(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "serve the bridge as an HTTP + WebSocket API and a web chat (docs/sidecar.md, docs/web-chat.md) until Ctrl-C",
    )
    .option(
      "--dir <directory>",
      "default project directory of sessions (default: the current one; with --demo, demo-project/ beside the store file)",
    )
    .option(
      "--model <provider/model>",
      "default model of new sessions (default: the config's, or demo/demo-1)",
    )
    .option("--config <file>", "OpenCode config file (JSON) merged into the managed server's")
    .addOption(
      choiceOption(
        "--backend <backend>",
        "how turns run (default: $OCB_BACKEND, else serve)",
        BACKEND_KINDS,
      ),
    )
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option("--opencode-data <directory>", OPENCODE_DATA_OPTION_HELP)
    .option("--port <port>", "port to listen on (default: a free port)")
    .option(
      "--socket [path]",
      "listen on a Unix socket instead of a port (made 0600, in a directory only you can write; default serve/sidecar.sock in the bridge's data directory): with --relay, nothing but this machine's user and paired devices reach it",
    )
    .option(
      "--host <host>",
      "address to listen on; anything but loopback needs OCB_TOKEN",
      "127.0.0.1",
    )
    .option("--demo", "use the built-in scripted model (offline, no credentials)")
    .option(
      "--allow-origin <origin>",
      "an origin (scheme://host:port) whose pages may call the API besides its own (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--allow-dir <directory>",
      "a directory besides --dir in which clients may make sessions, with what lies under it (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--allow-host <host>",
      "a Host name (name or name:port) to answer to besides its own, for a reverse proxy (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--no-web", "do not serve the web chat at / (the API only)")
    .addOption(
      choiceOption(
        "--log-format <format>",
        "log lines on stderr: text or json",
        LOG_FORMATS,
      ).default("text"),
    )
    .addOption(
      choiceOption(
        "--permissions <preset>",
        "which tool calls ask first (default: the config's)",
        Object.keys(PERMISSION_PRESETS),
      ),
    )
    .addOption(
      new Option(
        "--startup-timeout <ms>",
        "how long to wait for the OpenCode server to become ready",
      ).default("30000"),
    );
  addRelayOptions(
    addClusterOptions(addTlsOptions(addSandboxOptions(addPassEnvOption(command)))),
  ).action(async (options: ServeOptions) => serve(options));
}

async function serve(options: ServeOptions): Promise<void> {
  const backend = chooseBackend(options.backend);
  const model = options.model === undefined ? undefined : parseModel(options.model);
  const config = options.config === undefined ? undefined : readConfigFile(options.config);
  const socketPath = socketOf(options);
  const port = wholeNumber("--port", options.port ?? "0", 65_535);
  const startupTimeoutMs = wholeNumber("--startup-timeout", options.startupTimeout);
  const allowOrigins = options.allowOrigin.map(checkOrigin);
  const allowDirs = options.allowDir.map(checkAllowedDirectory);
  const { startSidecar, SidecarMetrics, timedStore, isLoopbackHost, chooseToken } =
    await sidecarModules();
  const token = chooseToken(options.host, process.env.OCB_TOKEN);
  const tls = tlsOf(options);
  const remote = remoteOf(options);
  const clusterTrust = clusterTrustOf(options, token.value);
  const spec = storeSpec(options.store);
  const demo: DemoDirectory | undefined =
    options.demo === true && options.dir === undefined ? demoDirectory(spec) : undefined;
  const directory = demo?.path ?? resolve(options.dir ?? ".");
  const logger = lineLogger(options.logFormat, (line) => process.stderr.write(line));
  const metrics: SidecarMetrics = new SidecarMetrics();
  const attach = attachedServer(options);
  const sandbox = sandboxOf(options, {
    directory,
    allowDirs,
    store: spec,
    secretFiles: [
      options.tlsKey,
      options.clusterSecretFile,
      options.storeKeyFile,
      ...(remote === undefined ? [] : relayFilesForSandbox(remote)),
      // The default socket's directory is the connection file's, hidden already.
      socketDirectoryToHide(
        options.socket === true ? undefined : socketPath,
        (options.sandbox ?? "off") !== "off",
        [directory, ...allowDirs],
      ),
    ],
  });
  const dataDir = opencodeDataDir(options.opencodeData, spec);
  const opened = await openStore(spec, { storeKey: storeKeyring(options.storeKeyFile) });
  let cluster: Awaited<ReturnType<typeof joinClusterIfAsked>>;
  try {
    cluster = await joinClusterIfAsked({ ...options, port, directory }, spec, opened, logger);
  } catch (error) {
    await opened.close();
    throw error;
  }
  // In a cluster the bridge writes through the cluster's store: its appends are fenced.
  const store = timedStore(cluster?.store ?? opened, (seconds) =>
    metrics.storeWriteSeconds.observe(seconds),
  );

  let bridge: Bridge | undefined;
  let sidecar: Sidecar | undefined;
  let announced: AnnouncedServe | undefined;
  let reason = "stopping";
  let stopped = false; // by Ctrl-C or SIGTERM, after the start: running turns are left
  const stop = handleInterrupts();
  try {
    bridge = await Bridge.start({
      directory,
      backend,
      store,
      logger,
      signal: stop.signal,
      server: {
        startupTimeoutMs,
        passEnv: options.passEnv,
        ...(sandbox === undefined ? {} : { sandbox }),
        ...(dataDir === undefined ? {} : { dataDir }),
      },
      ...(options.demo ? { modelServer: await demoModelServer() } : {}),
      ...(attach === undefined ? {} : { attach }),
      ...(model === undefined ? {} : { model }),
      ...(config === undefined ? {} : { config }),
      ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    });
    sidecar = await startSidecar({
      bridge,
      token: token.value,
      ...(socketPath === undefined ? { host: options.host, port } : { socketPath }),
      allowOrigins,
      allowHosts: options.allowHost,
      allowDirectories: allowDirs,
      logger,
      store,
      metrics,
      web: options.web,
      ...(cluster === undefined || clusterTrust === undefined ? {} : { cluster, clusterTrust }),
      ...(tls === undefined ? {} : { tls }),
      ...(remote === undefined ? {} : { remote }),
    });
    announced = announce(
      socketPath === undefined
        ? { url: sidecar.url, token: token.value }
        : // A URL no HTTP client dials: an ocb that knows no `socketPath` fails, not calls
          // http://localhost:80 with the token.
          { url: `unix:${socketPath}`, token: token.value, socketPath },
    );
    if (!isLoopbackHost(options.host)) {
      console.error(
        `ocb: warning: listening on ${options.host}, beyond this machine: anyone who can reach it and has the token can run tools in ${directory}`,
      );
    }
    const where = socketPath === undefined ? sidecar.url : `the socket ${socketPath}`;
    console.log(
      `ocb sidecar listening on ${where} (backend ${bridge.backend}, directory ${directory})`,
    );
    console.log(token.generated ? `token: ${token.value}` : "token: the one in OCB_TOKEN");
    // A browser cannot open a Unix socket: the chat reaches it through a relay only.
    if (options.web && socketPath === undefined)
      console.log(`chat: ${chatUrl(sidecar.url, token)}`);
    if (remote !== undefined) {
      console.log(
        `relays: ${remote.relays.join(", ")} (pair a device: ocb pair; list them: ocb devices)`,
      );
    }
    const curlTarget = socketPath === undefined ? "" : `--unix-socket ${socketPath} `;
    console.log(
      `try: curl ${curlTarget}-H "Authorization: Bearer $TOKEN" ${sidecar.url}/v1/sessions`,
    );
    if (announced !== undefined) {
      console.log(`ocb changes, ocb undo, … find it through ${announced.path}`);
    }
    console.log("press Ctrl-C to stop");
    reason = await stop.reason;
    stopped = true;
    console.log(`\n${reason}: shutting down`);
  } catch (error) {
    if (stop.signal.aborted) return; // whatever the aborted start threw: a requested stop
    throw error;
  } finally {
    announced?.dispose(); // first: a command run from now on is told there is no sidecar
    await sidecar?.close(reason);
    const left = await bridge?.close({ leaveRunning: stopped });
    if (left !== undefined) console.log(whatWasLeft(left));
    // Turns left running: their leases are left to expire, for another sidecar to take over.
    await cluster?.close({ release: (left?.turns.length ?? 0) === 0 });
    await store.close();
    stop.dispose();
    demo?.dispose();
  }
}

/**
 * The connection file, for the commands that drive a sidecar (`ocb changes`, `ocb undo`, …)
 * with no flags on this machine. Without it the sidecar still serves: they need --url then.
 */
function announce(fields: ServeConnectionFields): AnnouncedServe | undefined {
  try {
    return announceServe(fields);
  } catch (error) {
    console.error(
      `ocb: warning: no connection file (${describeError(error)}): ocb changes, ocb undo, … need --url and OCB_TOKEN to reach this sidecar`,
    );
    return undefined;
  }
}

/**
 * The sidecar's modules (fastify, its plugins, prom-client), loaded when `ocb serve` runs:
 * imported at the top they would slow every other command's start, a cold `ocb run` above all.
 */
async function sidecarModules() {
  const [sidecar, metrics, timed, security, token] = await Promise.all([
    import("../../sidecar/sidecar.js"),
    import("../../sidecar/metrics.js"),
    import("../../sidecar/timed-store.js"),
    import("../../sidecar/security.js"),
    import("../serve-token.js"),
  ]);
  return {
    chooseToken: token.chooseToken,
    isLoopbackHost: security.isLoopbackHost,
    startSidecar: sidecar.startSidecar,
    SidecarMetrics: metrics.SidecarMetrics,
    timedStore: timed.timedStore,
  };
}

/**
 * Where to open the web chat. The token goes in the fragment, which the browser never sends
 * (no request, log or Referer carries it); the page keeps it and clears the address bar. A
 * token the user chose (`OCB_TOKEN`) is not echoed: the page asks for it.
 */
export function chatUrl(url: string, token: { value: string; generated: boolean }): string {
  if (!token.generated) return `${url}/ (paste the token from OCB_TOKEN)`;
  return `${url}/#token=${encodeURIComponent(token.value)}`;
}

/** What the stop left running, and how a successor takes it up. */
export function whatWasLeft(left: LeftRunning): string {
  if (left.notLeft !== undefined) {
    return `running turns ended failed (session-closed): ${left.notLeft}`;
  }
  const count = left.turns.length;
  if (count === 0) return "nothing left running";
  const turns = `${count} running turn${count === 1 ? "" : "s"} left for adoption`;
  const again = `run \`ocb serve\` again with the same --store, --dir and --config to take ${count === 1 ? "it" : "them"} up`;
  if (left.server === undefined) return `${turns}: ${again}`;
  const seconds = Math.round(left.server.keptForMs / 1000);
  return `${turns}; the OpenCode server is kept for ${seconds} s: ${again}`;
}

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new UsageError(
      `--allow-origin ${JSON.stringify(origin)} is not an origin; pass scheme://host[:port]`,
    );
  }
  if (url.origin === "null" || url.pathname !== "/" || url.search !== "") {
    throw new UsageError(
      `--allow-origin ${JSON.stringify(origin)} is not an origin; pass scheme://host[:port] only`,
    );
  }
  return url.origin;
}

/** An `--allow-dir`, resolved: it must be a directory already (a typo would allow nothing). */
function checkAllowedDirectory(directory: string): string {
  const resolved = resolve(directory);
  if (!statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(
      `--allow-dir ${JSON.stringify(directory)} is not a directory (${resolved}); create it first or fix the path`,
    );
  }
  return resolved;
}

function wholeNumber(flag: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed > max) {
    throw new UsageError(`${flag} must be a whole number from 0 to ${max}, got "${value}"`);
  }
  return parsed;
}
