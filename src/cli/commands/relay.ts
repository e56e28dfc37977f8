/**
 * `ocb relay`: the relay server (docs/relay.md). Listens until Ctrl-C or SIGTERM, which close
 * every socket it holds, then exits 0. One log line per event on stderr.
 */
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { startRelay } from "../../relay/relay-server.js";
import { handleInterrupts } from "../interrupts.js";
import { addRelayLimitOptions, relayLimitsFromOptions } from "../relay-limit-options.js";
import { addTlsOptions, type TlsServeOptions, tlsOf } from "../serve-tls.js";

interface RelayCommandOptions extends TlsServeOptions {
  port?: string;
  host: string;
  allowHost: string[];
  trustProxy: string[];
  quiet?: boolean;
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
    .option("--quiet", "no log line per connection");
  addRelayLimitOptions(addTlsOptions(command)).action(async (options: RelayCommandOptions) =>
    relay(options),
  );
}

async function relay(options: RelayCommandOptions): Promise<void> {
  const port = portOf(options.port ?? "0");
  const limits = relayLimitsFromOptions(options as unknown as Record<string, unknown>);
  const tls = tlsOf(options);
  const stop = handleInterrupts();
  try {
    const relay = await startRelay({
      host: options.host,
      port,
      allowHosts: options.allowHost,
      trustProxies: options.trustProxy,
      limits,
      ...(tls === undefined ? {} : { tls }),
      ...(options.quiet ? {} : { log: (line: string) => console.error(line) }),
    });
    console.log(`ocb relay listening on ${relay.url}`);
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
