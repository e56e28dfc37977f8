/**
 * What a library user writes: a `Bridge` managing an OpenCode server with a password of its
 * caller's choosing, the provider's API key in its config, a SQLite store and a logger that
 * writes every line (debug included: a user's own logger may keep them) to a file; a turn
 * with a tool call (the first runs `env`, as a prompt injection would ask: the server's password
 * and the config's API key are in OpenCode's environment); then a recording of the server's answers (`RecordingTransport`, the model
 * catalog included, which echoes the API key) written to a file, as the recording docs show.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import { Bridge } from "../../../src/runtime/bridge/bridge.js";
import { HttpTransport } from "../../../src/transport/http-transport.js";
import { RecordingTransport } from "../../../src/transport/transcript/recording-transport.js";
import type { Logger } from "../../../src/util/logger.js";
import { isProcessGroupRunning } from "../../../src/util/process-liveness.js";

export interface LibraryWorkload {
  workDir: string;
  /** The OpenCode config: the scripted model's provider, with the API key. */
  config: Record<string, unknown>;
  apiKey: string;
  turns: number;
  secret(value: string, what?: string): void;
}

/** Every line, debug included, as JSON. */
function fileLogger(write: (line: string) => void): Logger {
  const line =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}): void =>
      write(`${JSON.stringify({ level, msg, ...fields })}\n`);
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

export async function runLibraryWorkload(
  work: LibraryWorkload,
): Promise<{ turns: number; leaked: number }> {
  const password = randomBytes(24).toString("base64url");
  work.secret(password, "the library bridge's server password");
  const log = createWriteStream(join(work.workDir, "library.log"));
  const directory = join(work.workDir, "library-project");
  mkdirSync(directory, { recursive: true });
  let bridge: Bridge | undefined;
  let serverPid: number | undefined;
  try {
    bridge = await Bridge.start({
      directory,
      store: join(work.workDir, "library.db"),
      config: work.config,
      server: { password },
      permissions: "allow-all",
      logger: fileLogger((line) => log.write(line)),
    });
    serverPid = bridge.server.pid;
    const session = await bridge.createSession({ title: "secrets scan" });
    let ended = 0;
    for (let turn = 0; turn < work.turns; turn++) {
      const text =
        turn % 2 === 0
          ? `[[tool bash {"command":"${turn === 0 ? "env" : `echo lib ${turn}`}"}]]`
          : "[[reasoning a thought]] [[reply ok]]";
      const result = await (await session.send(text, { delivery: "queue" })).done();
      if (result.outcome === "completed") ended++;
    }
    await record(
      bridge,
      [password, work.apiKey],
      directory,
      join(work.workDir, "recording.ndjson"),
    );
    await bridge.close();
    bridge = undefined;
    const leaked = serverPid !== undefined && isProcessGroupRunning(serverPid) ? 1 : 0;
    return { turns: ended, leaked };
  } finally {
    await bridge?.close();
    log.end();
    await once(log, "close");
  }
}

/** Records a few calls to the bridge's server, told its secrets as the recording docs say. */
async function record(
  bridge: Bridge,
  secrets: [password: string, apiKey: string],
  directory: string,
  file: string,
): Promise<void> {
  const [password] = secrets;
  const recorder = new RecordingTransport(new HttpTransport({ url: bridge.server.url, password }), {
    directory,
    secrets,
    scenario: "secrets-scan",
    version: "1.18.33",
  });
  const client = new OpencodeClient(recorder, { directory });
  await client.v2.model.list();
  await client.session.list();
  recorder.write(file);
}
