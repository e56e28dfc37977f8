/**
 * End to end: what a tool sees of the bridge's environment. A `bash` tool call running `env`
 * (as a prompt injection in a repository would ask the model to) printed every variable of the
 * bridge: its sidecar token, the password of a server it attaches to, a store URL with a
 * database password, anything else exported; and the two the launcher gives OpenCode itself,
 * the server's password and the config (with a provider's API key). The output goes to the
 * model's provider and into the transcript. Now the managed server gets an allow-list
 * (src/server/passed-env.ts), and the bridge's plugin (src/server/hide-secrets-plugin.ts) keeps
 * the password and the config out of every shell OpenCode starts, while the server still
 * authenticates and still uses the config.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { ModelServerFactory } from "../../src/runtime/bridge/model-server.js";
import { markConfigDependenciesInstalled } from "../../src/server/hide-secrets-plugin.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { basicAuthHeader } from "../../src/util/basic-auth.js";
import { trackProcess } from "../support/process-tracker.js";
import { collectTurn } from "../support/turn-events.js";

/** Set in this process before the server starts; each value is unique, to be looked for. */
const PLANTED = {
  OCB_TOKEN: "planted-sidecar-token-5b1e",
  OCB_ATTACH_PASSWORD: "planted-attach-password-77c0",
  OCB_STORE: "postgres://ocb:planted-db-password-a9d2@db/ocb",
  PGPASSWORD: "planted-pg-password-3f61",
  ANTHROPIC_API_KEY: "planted-provider-key-0c4d",
  OCB_E2E_NAMED: "planted-named-variable-e8a7",
};
/** The server's password, chosen here to be looked for (the launcher's own is random). */
const SERVER_PASSWORD = "planted-server-password-19be";
/** A provider key given in the config, as `--config` would: the scripted model ignores it. */
const CONFIG_KEY = "planted-config-key-6d30";

/** The scripted model, configured with the planted key: a turn on it proves the config is used. */
const modelWithPlantedKey: ModelServerFactory = async ({ logger }) => {
  const model = await startScriptedModel({ logger, keepRequests: 8 });
  const config = demoProviderConfig(model.url);
  config.provider.demo.options.apiKey = CONFIG_KEY;
  return {
    config: { ...config },
    defaultModel: { providerID: "demo", modelID: "demo-1" },
    close: () => model.close(),
  };
};

const saved: Record<string, string | undefined> = {};
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

function setEnv(name: string, value: string): void {
  if (!(name in saved)) saved[name] = process.env[name];
  process.env[name] = value;
}

beforeAll(() => {
  for (const [name, value] of Object.entries(PLANTED)) setEnv(name, value);
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function startBridge(
  backend: "serve" | "serve-legacy",
  server: { inheritUserConfig?: boolean },
): Promise<Bridge> {
  const bridge = await Bridge.start({
    directory: tempDir("ocb-tool-env-"),
    backend,
    modelServer: modelWithPlantedKey,
    server: { ...server, password: SERVER_PASSWORD, passEnv: ["PGPASSWORD", "OCB_E2E_NAMED"] },
  });
  trackProcess(bridge.server.pid, "opencode serve (tool env e2e)");
  return bridge;
}

/**
 * Has the `bash` tool print its environment, then OpenCode's initial one (what
 * `/proc/<pid>/environ` shows, whatever `process.env` became), as a prompt injection would.
 */
const PRINT_ENVIRONMENTS = String.raw`env; echo ---environ---; tr '\000' '\n' < /proc/$OPENCODE_PID/environ`;

/** Runs {@link PRINT_ENVIRONMENTS}; the turn must complete (the bridge authenticated, the config's model answered). */
async function envSeenByTool(bridge: Bridge): Promise<{ printed: string; transcript: string }> {
  const session = await bridge.createSession({ title: "env" });
  const call = `[[tool bash ${JSON.stringify({ command: PRINT_ENVIRONMENTS })}]]`;
  const turn = await session.send(call, { delivery: "queue" });
  const events = await collectTurn(turn);
  const ended = events.find((event) => event.type === "turn.ended");
  expect(ended?.data).toMatchObject({ outcome: "completed" });
  const output = events.flatMap((event) =>
    event.type === "tool.succeeded" ? [String(event.data.output ?? "")] : [],
  );
  expect(output).toHaveLength(1);
  const printed = output[0] ?? "";
  expect(printed).toContain("PATH="); // the command ran, and printed the environment
  return { printed, transcript: JSON.stringify(await session.transcript()) };
}

/** The server still asks for its password after the plugin took it out of OpenCode's environment. */
async function expectAuthStillRequired(bridge: Bridge): Promise<void> {
  const health = `${bridge.server.url}/global/health`;
  const bound = () => AbortSignal.timeout(10_000);
  expect((await fetch(health, { signal: bound() })).status).toBe(401);
  const wrong = { authorization: basicAuthHeader("opencode", "not-the-password") };
  expect((await fetch(health, { headers: wrong, signal: bound() })).status).toBe(401);
  const right = { authorization: basicAuthHeader("opencode", SERVER_PASSWORD) };
  expect((await fetch(health, { headers: right, signal: bound() })).status).toBe(200);
}

function expectNoSecretOfTheLauncher(printed: string): void {
  const [inherited = "", initial = ""] = printed.split("---environ---");
  expect(inherited).not.toMatch(/^OPENCODE_SERVER_PASSWORD=/m);
  expect(inherited).not.toMatch(/^OPENCODE_CONFIG_CONTENT=/m);
  // OpenCode's initial environment was read (it names both), their values overwritten.
  expect(initial).toMatch(/^OPENCODE_SERVER_PASSWORD=\*+$/m);
  expect(initial).toMatch(/^OPENCODE_CONFIG_CONTENT=\*+$/m);
  expect(printed).not.toContain(SERVER_PASSWORD);
  expect(printed).not.toContain(CONFIG_KEY);
}

describe("an isolated server (the default), on /api", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge("serve", {});
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it("a tool running `env` sees none of the bridge's own variables; what is passed, it sees", async () => {
    const { printed, transcript } = await envSeenByTool(bridge);
    for (const name of ["OCB_TOKEN", "OCB_ATTACH_PASSWORD", "OCB_STORE"] as const) {
      expect(printed).not.toContain(PLANTED[name]);
    }
    // A provider key by its usual name, and the names the caller passed, do reach it; `OCB_*`
    // never does, even when named.
    expect(printed).toContain(PLANTED.ANTHROPIC_API_KEY);
    expect(printed).toContain(PLANTED.PGPASSWORD);
    expect(printed).not.toContain(PLANTED.OCB_E2E_NAMED);
    // Nor is any of them in the transcript.
    expect(transcript).not.toContain(PLANTED.OCB_TOKEN);
    expect(transcript).not.toContain("planted-db-password");
  });

  it("OpenCode's temp dir is the server's own: the native library it unpacks lands there, not in the user's", async () => {
    const { printed } = await envSeenByTool(bridge);
    const data = /^XDG_DATA_HOME=(.*)$/m.exec(printed)?.[1];
    if (data === undefined) throw new Error(`no XDG_DATA_HOME in ${printed}`);
    const own = join(dirname(data), "tmp");
    expect(printed).toMatch(new RegExp(`^TMPDIR=${own}$`, "m"));
    // OpenCode (a Bun executable) unpacks its file finder's library at its first session and
    // never removes it: 6 MB in /tmp per server started, before. The root goes when it stops.
    expect(readdirSync(own).filter((name) => name.endsWith(".so"))).not.toEqual([]);
  });

  it("nor the server's password nor the config (a provider key in it); the server still asks for its password", async () => {
    const { printed, transcript } = await envSeenByTool(bridge);
    expectNoSecretOfTheLauncher(printed);
    expect(transcript).not.toContain(SERVER_PASSWORD);
    expect(transcript).not.toContain(CONFIG_KEY);
    await expectAuthStillRequired(bridge);
  });
});

// On the legacy surface: OpenCode's `/api` catalog reads providers only from the global config
// file, which with the user's own config is theirs (isolated-dirs.ts). The legacy surface loads
// plugins of the other shape, so the plugin's second half is proven here.
describe("a server with the user's own OpenCode config, on the legacy surface", () => {
  let bridge: Bridge;
  beforeAll(async () => {
    // The user's setup, made up here: their config and data homes, empty.
    const home = tempDir("ocb-tool-env-home-");
    for (const name of ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"]) {
      const dir = join(home, name.toLowerCase());
      mkdirSync(dir);
      setEnv(name, dir);
    }
    // As a user's OpenCode leaves its config dir after its first run: with a plugin configured,
    // the legacy surface would otherwise wait for an npm install there (hide-secrets-plugin.ts).
    await markConfigDependenciesInstalled(join(home, "xdg_config_home", "opencode"));
    bridge = await startBridge("serve-legacy", { inheritUserConfig: true });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it("a tool running `env` sees neither the server's password nor the config; the server still asks for its password", async () => {
    const { printed } = await envSeenByTool(bridge);
    expectNoSecretOfTheLauncher(printed);
    await expectAuthStillRequired(bridge);
  });
});
