/**
 * `ocb serve`: starts a managed `opencode serve` (with `--demo`, behind the built-in
 * scripted model, offline and without credentials), prints its URL and health, and shuts
 * everything down cleanly on Ctrl-C or SIGTERM; a second one kills the server's process group
 * and exits 130 at once.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { OpencodeClient } from "../../client/opencode-client.js";
import { UsageError } from "../../errors.js";
import { type OpencodeServerHandle, startOpencode } from "../../server/index.js";
import { demoProviderConfig } from "../../testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../testing/scripted-model/index.js";
import { HttpTransport } from "../../transport/http-transport.js";
import { readConfigFile } from "../config-file.js";
import { handleInterrupts } from "../interrupts.js";

interface ServeOptions {
  demo?: boolean;
  dir: string;
  port?: string;
  config?: string;
  startupTimeout: string;
  showPassword?: boolean;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("start a managed opencode server and keep it running until Ctrl-C")
    .option("--demo", "use the built-in scripted demo model (offline, no credentials)")
    .option("--dir <directory>", "project directory the server works in", ".")
    .option("--port <port>", "port to listen on (default: a free port)")
    .option("--config <file>", "OpenCode config file (JSON) to merge into the server's config")
    .option("--startup-timeout <ms>", "how long to wait for the server to become ready", "30000")
    .option(
      "--show-password",
      "print the server's random Basic-auth password (to connect other clients)",
    )
    .action(async (options: ServeOptions) => serve(options));
}

async function serve(options: ServeOptions): Promise<void> {
  const directory = resolve(options.dir);
  mkdirSync(directory, { recursive: true });
  const port = parseNumberOption("--port", options.port);
  const startupTimeoutMs = parseNumberOption("--startup-timeout", options.startupTimeout);
  const fileConfig = options.config === undefined ? {} : readConfigFile(options.config);

  let model: ScriptedModel | undefined;
  let server: OpencodeServerHandle | undefined;
  const stopping = handleInterrupts();
  try {
    let config = fileConfig;
    if (options.demo) {
      model = await startScriptedModel();
      config = { ...fileConfig, ...demoProviderConfig(model.url) };
      console.log(`demo model: ${model.url} (scripted, not an LLM)`);
    }
    server = await startOpencode({
      directory,
      config,
      ...(port === undefined ? {} : { port }),
      ...(startupTimeoutMs === undefined ? {} : { startupTimeoutMs }),
      signal: stopping.signal,
    });
    const client = new OpencodeClient(
      new HttpTransport({ url: server.url, password: server.password }),
      { directory },
    );
    const health = await client.global.health({ signal: stopping.signal });
    console.log(`opencode ${health.version ?? "?"} listening on ${server.url} (pid ${server.pid})`);
    console.log(`health: ${health.healthy ? "healthy" : "unhealthy"}; directory: ${directory}`);
    console.log(
      options.showPassword
        ? `auth: Basic, user "opencode", password ${server.password}`
        : `auth: Basic, user "opencode", a random password (--show-password prints it)`,
    );
    console.log("press Ctrl-C to stop");

    const exit = await Promise.race([stopping.reason, server.exited]);
    if (typeof exit === "string") {
      console.log(`\n${exit}: shutting down`);
    } else {
      process.exitCode = 1;
      console.error(`opencode exited unexpectedly (code ${exit.code}, signal ${exit.signal})`);
      console.error(exit.logTail.slice(-20).join("\n"));
    }
  } finally {
    stopping.dispose();
    await server?.close();
    await model?.close();
  }
}

function parseNumberOption(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new UsageError(`${flag} must be a non-negative integer, got "${value}"`);
  }
  return parsed;
}
