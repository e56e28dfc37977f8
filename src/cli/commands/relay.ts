/**
 * `ocb relay`: the relay server (docs/relay.md). Listens until Ctrl-C or SIGTERM, which close
 * every socket it holds, then exits 0. One log line per event on stderr.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { startRelay } from "../../relay/relay-server.js";
import { defaultWebRoot } from "../../web-files/web-root.js";
import { handleInterrupts } from "../interrupts.js";
import { addRelayLimitOptions, relayLimitsFromOptions } from "../relay-limit-options.js";
import { addTlsOptions, type TlsServeOptions, tlsOf } from "../serve-tls.js";

interface RelayCommandOptions extends TlsServeOptions {
  port?: string;
  host: string;
  allowHost: string[];
  trustProxy: string[];
  quiet?: boolean;
  web?: string | true;
}

export function registerRelayCommand(program: Command): void {
  const command = program
    .command("relay")
    .description(
      "run a relay that sidecars connect out to and clients reach them through (docs/relay.md), until Ctrl-C",
    )
    .option("--port <port>", "port to listen on (default: a free port)")
    .option("--host <host>", "address to listen on (0.0.0.0 for every one)", "127.0.0.1")
    .option(
      "--allow-host <host>",
      "a Host name (name or name:port) to answer to; any when none is given (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--trust-proxy <address>",
      "a reverse proxy's address whose X-Forwarded-For names the client, for the per-address limits (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--quiet", "no log line per connection")
    .option(
      "--web [dir]",
      "also serve the web chat (default: the package's built dist/web), so that a pairing link based on this relay opens a page that pairs and chats through it; its operator then serves the page's code (docs/relay.md)",
    );
  addRelayLimitOptions(addTlsOptions(command)).action(async (options: RelayCommandOptions) =>
    relay(options),
  );
}

async function relay(options: RelayCommandOptions): Promise<void> {
  const port = portOf(options.port ?? "0");
  const limits = relayLimitsFromOptions(options as unknown as Record<string, unknown>);
  const tls = tlsOf(options);
  const webRoot = webRootOf(options.web);
  const stop = handleInterrupts();
  try {
    const relay = await startRelay({
      host: options.host,
      port,
      allowHosts: options.allowHost,
      trustProxies: options.trustProxy,
      limits,
      ...(tls === undefined ? {} : { tls }),
      ...(webRoot === undefined ? {} : { webRoot }),
      ...(options.quiet ? {} : { log: (line: string) => console.error(line) }),
    });
    console.log(`ocb relay listening on ${relay.url}`);
    if (webRoot !== undefined) console.log(`web chat: ${relay.url.replace(/^ws/, "http")}/`);
    console.log("press Ctrl-C to stop");
    const reason = await stop.reason;
    console.log(`\n${reason}: shutting down`);
    await relay.close();
  } finally {
    stop.dispose();
  }
}

function portOf(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got "${value}"`);
  }
  return port;
}

/** The built chat `--web` names, checked now rather than answered 404 at every load. */
function webRootOf(web: string | true | undefined): string | undefined {
  if (web === undefined) return undefined;
  const root = web === true ? defaultWebRoot() : resolve(web);
  if (!existsSync(join(root, "index.html"))) {
    throw new UsageError(
      `--web: ${root} holds no built chat (no index.html); in a checkout, run npm run build:web`,
    );
  }
  return root;
}
