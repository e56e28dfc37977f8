/**
 * End to end: a kept session outlives a crash of everything, on SQLite and on Postgres. `ocb
 * serve` runs a turn; then the sidecar and its OpenCode server are killed (SIGKILL, nothing
 * gets to clean up); a new `ocb serve` on the same store, with no `--opencode-data`, takes a
 * new turn in the same session, and the model is sent the turn before the crash: OpenCode's
 * data is kept by default for every store kept on disk (beside a SQLite file; for Postgres, in
 * a private directory of the user's data directory, one per store).
 *
 * The scripted model runs in this test process (through `--config`), so that it outlives the
 * first sidecar.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { opencodeDataDir } from "../../src/cli/opencode-data.js";
import { managedServerKey } from "../../src/runtime/bridge/managed-servers.js";
import { openStore } from "../../src/store/open-store.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { type RunningOcb, sidecarUrlOf, startOcb, untilOcb } from "../support/ocb-cli.js";
import { isRunning, trackProcess } from "../support/process-tracker.js";
import { callSidecar, canonicalEventsOf, subscribeOverWs } from "../support/sidecar-http.js";
import { usePostgres } from "../support/use-postgres.js";

const TOKEN = "sidecar-restart-e2e-token-0123456789";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;

const postgres = usePostgres();
let model: ScriptedModel;
let root: string;
let configFile: string;
/** Every process group started here (sidecars, their servers), killed in afterAll if left. */
const groups: number[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ocb-sidecar-restart-"));
  model = await startScriptedModel();
  configFile = join(root, "config.json");
  writeFileSync(configFile, JSON.stringify(demoProviderConfig(model.url)));
});

afterAll(async () => {
  for (const pid of groups) killGroup(pid);
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone already
  }
}

/** `ocb serve` on `dir` and `store` (no --opencode-data: the default is what is tested). */
async function startServe(dir: string, store: string): Promise<{ cli: RunningOcb; url: string }> {
  const args = ["serve", "--dir", dir, "--store", store, "--config", configFile];
  const cli = startOcb([...args, "--model", "demo/demo-1"], { env: { OCB_TOKEN: TOKEN } });
  groups.push(cli.pid);
  return { cli, url: await sidecarUrlOf(cli, BOUND_MS) };
}

/** Sends `text` to the session and waits for its turn's end; gives the turn's outcome. */
async function turn(url: string, sessionId: string, text: string, cli: RunningOcb) {
  const client = await subscribeOverWs({ url, token: TOKEN }, sessionId, 0);
  const sent = (await callSidecar(
    { url, token: TOKEN, boundMs: BOUND_MS },
    "POST",
    `/v1/sessions/${sessionId}/inputs`,
    { text, delivery: "queue" },
  )) as { turnId: string };
  const ended = () =>
    canonicalEventsOf(client).find((e) => e.type === "turn.ended" && e.turnId === sent.turnId);
  await untilOcb(`the end of the turn of ${text}`, cli, () => ended() !== undefined, BOUND_MS);
  client.close();
  return ended()?.data;
}

/** The managed server the store records for `dir`: its pid, tracked for the teardown. */
async function recordedServerPid(store: string, dir: string): Promise<number> {
  const opened = await openStore(store);
  try {
    const pid = (await opened.server(managedServerKey("serve", dir)))?.pid;
    if (pid === undefined) throw new Error("the store records no managed server");
    trackProcess(pid, "opencode serve (sidecar restart)");
    groups.push(pid);
    return pid;
  } finally {
    await opened.close();
  }
}

describe.each([
  { kind: "SQLite", store: async (dir: string) => join(dir, "store.db") },
  { kind: "Postgres", store: () => postgres.freshDatabase() },
])("on $kind", ({ kind, store: storeOf }) => {
  it("after SIGKILL of the sidecar and its OpenCode, a new ocb serve takes a new turn in the session, with its history", async () => {
    const dir = mkdtempSync(join(root, `${kind}-`));
    const store = await storeOf(dir);
    const first = await startServe(dir, store);
    const session = (await callSidecar(
      { url: first.url, token: TOKEN, boundMs: BOUND_MS },
      "POST",
      "/v1/sessions",
      { title: kind },
    )) as { id: string };
    const before = `[[reply noted]] the word before the crash is ${kind}-heron`;
    expect(await turn(first.url, session.id, before, first.cli)).toMatchObject({
      outcome: "completed",
    });

    // Everything killed at once: nothing gets to clean up or to leave word.
    const serverPid = await recordedServerPid(store, dir);
    killGroup(first.cli.pid);
    killGroup(serverPid);
    await first.cli.exited;
    await vi.waitFor(() => expect(isRunning(serverPid)).toBe(false), { timeout: BOUND_MS });

    const again = await startServe(dir, store);
    const after = `[[reply still here]] ${kind} after the crash`;
    expect(await turn(again.url, session.id, after, again.cli)).toMatchObject({
      outcome: "completed",
    });
    const asked = model.requests.find((request) => request.lastUserText.includes(after));
    // The same upstream session went on: the model was sent the turn before the crash.
    expect(JSON.stringify(asked?.messages)).toContain(`${kind}-heron`);

    const kept = opencodeDataDir(undefined, store);
    expect(kept).toBeDefined();
    // Readable by its owner only: OpenCode's sessions hold the conversation.
    expect(statSync(kept ?? "").mode & 0o077).toBe(0);

    process.kill(again.cli.pid, "SIGTERM");
    expect(await again.cli.exited).toBe(0);
    expect(again.cli.stdout).toContain("nothing left running");
  });
});
