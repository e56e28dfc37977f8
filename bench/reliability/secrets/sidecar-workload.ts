/**
 * What a sidecar user writes: `ocb serve` (the CLI, a process of its own) with a token, a
 * managed OpenCode server (its password random), a config file carrying the provider's API
 * key, a SQLite store and its logs in files; a typed client runs turns over the WebSocket; a
 * client with a wrong token is refused; then the sidecar is stopped and the session exported
 * with `ocb export`. The first turn has the `bash` tool run `env` (as a prompt injection would
 * ask): its output is in the store and the export, so every secret in `ocb serve`'s
 * environment (the token, an attach password, a Postgres password) is looked for there too.
 * Every secret is told to the suite.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { BridgeClient } from "../../../src/client/index.js";
import type { CanonicalEvent } from "../../../src/events/canonical.js";
import { DescendantWatch } from "../../../test/support/descendants.js";
import { within } from "../../../test/support/within.js";
import { NodeWebSocket } from "../../../test/support/ws.js";
import { type ScriptProcess, startScript } from "../processes/script-process.js";
import { serverPasswordOf } from "./server-password.js";

export interface SidecarWorkload {
  workDir: string;
  /** The OpenCode config file (with the API key): the user's own input, kept out of `workDir`. */
  configFile: string;
  turns: number;
  secret(value: string, what?: string): void;
}

/** Bound on each wait, a safety net: the sidecar's start, a turn, the stop. */
const WAIT_MS = 90_000;
const CLI = "src/cli/ocb.ts";

export interface SidecarDone {
  turns: number;
  /** Processes `ocb serve` started still running after it exited. */
  leaked: number;
}

export async function runSidecarWorkload(work: SidecarWorkload): Promise<SidecarDone> {
  const token = randomBytes(24).toString("base64url");
  const wrongToken = randomBytes(24).toString("base64url");
  work.secret(token, "the sidecar token");
  work.secret(wrongToken, "a wrong token a client presented"); // no log may keep it either
  // Exported as an operator would: the password of an attached server, a Postgres password.
  const attachPassword = randomBytes(24).toString("base64url");
  const pgPassword = randomBytes(24).toString("base64url");
  work.secret(attachPassword, "OCB_ATTACH_PASSWORD in ocb serve's environment");
  work.secret(pgPassword, "PGPASSWORD in ocb serve's environment");
  const store = join(work.workDir, "sidecar.db");
  const project = join(work.workDir, "sidecar-project");
  mkdirSync(project, { recursive: true });
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const serve = startScript(CLI, {
    args: [
      "serve",
      "--store",
      store,
      "--dir",
      join(work.workDir, "sidecar-project"),
      "--config",
      work.configFile,
    ],
    // Its own log lines as JSON, the model and permissions as a deployment would set them.
    env: { OCB_TOKEN: token, OCB_ATTACH_PASSWORD: attachPassword, PGPASSWORD: pgPassword },
    stderrFile: join(work.workDir, "sidecar.log"),
    stdoutFile: join(work.workDir, "sidecar.out.log"),
    onLine: (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match?.[1] !== undefined) listening(match[1]);
    },
  });
  const watch = new DescendantWatch(serve.pid, 100);
  try {
    const sidecarUrl = await bounded(url, serve, "ocb serve's start");
    watch.poll();
    const password = serverPasswordOf(watch.running().map((seen) => seen.pid));
    if (password === undefined)
      throw new Error("found no OpenCode server password in ocb serve's children");
    work.secret(password, "ocb serve's managed server password");
    const result = await driveTurns(sidecarUrl, token, wrongToken, work.turns);
    serve.child.kill("SIGTERM");
    await bounded(serve.exited, serve, "ocb serve's stop");
    await delay(500); // what still runs a moment after it exited was left behind
    watch.poll();
    const leaked = watch.running().length;
    await exportSession(work.workDir, store, result.sessionId);
    return { turns: result.turns, leaked };
  } finally {
    watch.stop();
    serve.kill();
    watch.killLeft();
  }
}

async function driveTurns(
  url: string,
  token: string,
  wrongToken: string,
  turns: number,
): Promise<{ sessionId: string; turns: number }> {
  const refused = new BridgeClient({ url, token: wrongToken, WebSocket: NodeWebSocket });
  const answer = await refused.listSessions().then(
    () => "answered",
    (error: unknown) => (error instanceof Error ? error.name : "refused"),
  );
  refused.close();
  if (answer === "answered") throw new Error("the sidecar answered a client with a wrong token");
  const client = new BridgeClient({ url, token, WebSocket: NodeWebSocket });
  try {
    const session = await client.createSession({ title: "secrets scan" });
    const subscription = client.subscribe(session.id);
    let ended = 0;
    const reading = (async () => {
      for await (const event of subscription) {
        if (isTurnEnd(event) && ++ended === turns) return;
      }
    })();
    for (let turn = 0; turn < turns; turn++) {
      const text =
        turn % 2 === 0
          ? `[[tool bash {"command":"${turn === 0 ? "env" : `echo turn ${turn}`}"}]]`
          : `[[slow 5 10]]`;
      await client.send(session.id, { text, delivery: "queue" });
    }
    await within(reading, `the sidecar's ${turns} turns`, WAIT_MS);
    subscription.close();
    return { sessionId: session.id, turns: ended };
  } finally {
    client.close();
  }
}

const isTurnEnd = (event: CanonicalEvent): boolean => event.type === "turn.ended";

async function exportSession(workDir: string, store: string, sessionId: string): Promise<void> {
  const exported = startScript(CLI, {
    args: ["export", sessionId, "--store", store],
    stderrFile: join(workDir, "export.stderr.log"),
    stdoutFile: join(workDir, "export.ndjson"),
  });
  const exit = await bounded(exported.exited, exported, "ocb export");
  if (exit.code !== 0)
    throw new Error(`ocb export exited ${exit.code ?? exit.signal} (see export.stderr.log)`);
}

/** `promise`, or a failure naming `what` when `process` exits first or WAIT_MS passes. */
function bounded<T>(promise: Promise<T>, process: ScriptProcess, what: string): Promise<T> {
  const exitedFirst = process.exited.then(async (exit) => {
    await delay(100); // the promise may settle from the same exit
    throw new Error(`${what}: exited ${exit.code ?? exit.signal} first`);
  });
  return within(Promise.race([promise, exitedFirst]), what, WAIT_MS);
}
