/**
 * End to end: `ocb serve` stopped gracefully (SIGTERM) while a long turn runs leaves it for
 * adoption: its clients get 1012 "resume from your last seq", it exits 0 and says what it
 * left; the OpenCode server runs on (its keeper keeps it), and a second `ocb serve` on the
 * same store takes the server and the session up. A client that resumes there from its last
 * seq ends with the turn's durable events whole (0 lost, 0 duplicated) and the turn completed.
 * Stopped with no turn running, `ocb serve` leaves nothing running, and started again on the
 * same store goes on with the kept session: its OpenCode server has the session (the model is
 * sent the earlier turn), since OpenCode's data is kept beside the store.
 *
 * The scripted model runs in this test process (through `--config`), not in the sidecar
 * (`--demo`): the model a turn calls must outlive the first sidecar, and both sidecars must
 * start the server with the same config for the second to take it up.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { managedServerKey } from "../../src/runtime/bridge/managed-servers.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { killLeftOcb, type RunningOcb, sidecarUrlOf, startOcb } from "../support/ocb-cli.js";
import { isRunning, trackProcess } from "../support/process-tracker.js";
import type { RawWsClient } from "../support/raw-ws.js";
import {
  callSidecar,
  canonicalEventsOf,
  durable,
  subscribeOverWs,
} from "../support/sidecar-http.js";

const TOKEN = "sidecar-adopt-e2e-token-0123456789";
const COUNT = 40;
const PROMPT = `[[slow ${COUNT} 250]]`;
const TEXT = Array.from({ length: COUNT }, (_, index) => `tok${index + 1}`).join(" ");
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;

let model: ScriptedModel;
let root: string;
let configFile: string;
const clis: RunningOcb[] = [];
/** The managed servers' pids, to kill in afterAll if a failed test left one. */
const serverPids: number[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ocb-sidecar-adopt-"));
  model = await startScriptedModel();
  configFile = join(root, "config.json");
  writeFileSync(configFile, JSON.stringify(demoProviderConfig(model.url)));
});

afterAll(async () => {
  for (const cli of clis) {
    killLeftOcb(cli);
  }
  for (const pid of serverPids.filter(isRunning)) {
    try {
      process.kill(-pid, "SIGKILL"); // a failed test's kept server
    } catch {
      // gone
    }
  }
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

async function until(what: string, ready: () => boolean, cli?: RunningOcb): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!ready()) {
    if (Date.now() > deadline) {
      throw new Error(`never reached ${what}:\n${cli?.stdout ?? ""}\n${cli?.stderr ?? ""}`);
    }
    await delay(50);
  }
}

/** Starts `ocb serve` on `dir` (its store in it, the scripted model in the config); waits for its URL. */
async function startServe(dir: string): Promise<{ cli: RunningOcb; url: string }> {
  const args = ["serve", "--dir", dir, "--store", join(dir, "store.db"), "--config", configFile];
  const cli = startOcb([...args, "--model", "demo/demo-1"], { env: { OCB_TOKEN: TOKEN } });
  clis.push(cli);
  return { cli, url: await sidecarUrlOf(cli, BOUND_MS) };
}

function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return callSidecar({ url, token: TOKEN, boundMs: BOUND_MS }, method, path, body);
}

/** A WebSocket subscribed to the session after `after`; its events read from `received`. */
function subscribe(url: string, sessionId: string, after: number): Promise<RawWsClient> {
  return subscribeOverWs({ url, token: TOKEN }, sessionId, after);
}

const eventsOf = canonicalEventsOf;

/** The pid of the managed server the store of `dir` records, tracked for the teardown. */
async function recordedServerPid(dir: string): Promise<number | undefined> {
  const store = SqliteStore.open(join(dir, "store.db"));
  try {
    const pid = (await store.server(managedServerKey("serve", dir)))?.pid;
    if (pid !== undefined) {
      trackProcess(pid, "opencode serve (sidecar adopt)");
      serverPids.push(pid);
    }
    return pid;
  } finally {
    await store.close();
  }
}

/** SIGTERM with no turn running: exits 0, says it left nothing, and its server is gone. */
async function stopLeavingNothing(cli: RunningOcb, dir: string, serverPid: number): Promise<void> {
  process.kill(cli.pid, "SIGTERM");
  expect(await cli.exited).toBe(0);
  expect(cli.stdout).toContain("nothing left running");
  await until("the server's end", () => !isRunning(serverPid));
  const store = SqliteStore.open(join(dir, "store.db"));
  expect(await store.server(managedServerKey("serve", dir))).toBeUndefined();
  store.close();
}

const lastSeq = (events: CanonicalEvent[]) =>
  Math.max(0, ...durable(events).map((e) => e.seq ?? 0));

it("stopped mid-turn, leaves the turn to a successor on the same store: resumed, 0 lost, 0 duplicated, completed", async () => {
  const dir = mkdtempSync(join(root, "adopt-"));
  const first = await startServe(dir);
  const session = (await call(first.url, "POST", "/v1/sessions", { title: "adopt" })) as {
    id: string;
  };
  const early = await subscribe(first.url, session.id, 0);
  await call(first.url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: PROMPT,
    delivery: "queue",
  });
  await until(
    "the turn's first deltas",
    () => eventsOf(early).filter((event) => event.type === "text.delta").length >= 3,
    first.cli,
  );
  const serverPid = await recordedServerPid(dir);
  expect(serverPid).toBeDefined();

  process.kill(first.cli.pid, "SIGTERM");
  expect(await early.closed).toEqual({
    code: 1012,
    reason: "sidecar stopping: resume from your last seq",
  });
  expect(await first.cli.exited).toBe(0);
  expect(first.cli.stdout).toMatch(/1 running turn left for adoption; the OpenCode server is kept/);
  // Left, not stopped: the server runs on, the turn in it.
  expect(isRunning(serverPid ?? 0)).toBe(true);
  const seen = durable(eventsOf(early));
  expect(seen.some((event) => event.type === "turn.ended")).toBe(false);

  const successor = await startServe(dir);
  const resumed = await subscribe(successor.url, session.id, lastSeq(seen));
  await until(
    "the adopted turn's end",
    () => eventsOf(resumed).some((event) => event.type === "turn.ended"),
    successor.cli,
  );
  resumed.close();
  // The same server, taken up: not a new one.
  const kept = SqliteStore.open(join(dir, "store.db"));
  expect((await kept.server(managedServerKey("serve", dir)))?.pid).toBe(serverPid);
  const transcript = await kept.read(session.id);
  kept.close();

  const all = [...seen, ...durable(eventsOf(resumed))];
  expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
  expect(all.map((event) => event.seq)).toEqual(transcript.map((event) => event.seq));
  expect(all.map((event) => event.type)).toEqual(transcript.map((event) => event.type));
  const ends = all.filter((event) => event.type === "turn.ended");
  expect(ends).toHaveLength(1);
  expect(ends[0]?.data).toMatchObject({ outcome: "completed", text: TEXT });
  expect(all.filter((event) => event.type === "turn.started")).toHaveLength(1);

  // The turn over, the successor stops everything: nothing is left this time.
  await stopLeavingNothing(successor.cli, dir, serverPid ?? 0);
});

it("stopped with no turn running, leaves nothing running: the server stops with it; started again, it goes on with the session", async () => {
  const dir = mkdtempSync(join(root, "idle-"));
  const { cli, url } = await startServe(dir);
  const session = (await call(url, "POST", "/v1/sessions", { title: "idle" })) as { id: string };
  const client = await subscribe(url, session.id, 0);
  await call(url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: "[[slow 2 10]]",
    delivery: "queue",
  });
  await until("the turn's end", () => eventsOf(client).some((e) => e.type === "turn.ended"), cli);
  const serverPid = await recordedServerPid(dir);
  expect(serverPid).toBeDefined();
  await stopLeavingNothing(cli, dir, serverPid ?? 0);
  expect(await client.closed).toMatchObject({ code: 1012 });

  // A full stop, then a start: a new OpenCode server, which must still have the session.
  const again = await startServe(dir);
  const resumed = await subscribe(again.url, session.id, lastSeq(durable(eventsOf(client))));
  await call(again.url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: "[[slow 1 10]] and again",
    delivery: "queue",
  });
  await until(
    "the next turn's end",
    () => eventsOf(resumed).some((e) => e.type === "turn.ended"),
    again.cli,
  );
  resumed.close();
  expect(eventsOf(resumed).find((e) => e.type === "turn.ended")?.data).toMatchObject({
    outcome: "completed",
  });
  const asked = model.requests.find((request) => request.lastUserText.includes("and again"));
  // The conversation went on: the model was sent the turn before the stop.
  expect(JSON.stringify(asked?.messages)).toContain("[[slow 2 10]]");
  await stopLeavingNothing(again.cli, dir, (await recordedServerPid(dir)) ?? 0);
});
