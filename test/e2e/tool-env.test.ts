/**
 * End to end: what a tool sees of the bridge's environment. A `bash` tool call running `env`
 * (as a prompt injection in a repository would ask the model to) printed every variable of the
 * bridge: its sidecar token, the password of a server it attaches to, a store URL with a
 * database password, anything else exported. The output goes to the model's provider and into
 * the transcript. Now the managed server gets an allow-list (src/server/passed-env.ts): the
 * basics, provider keys by their usual names, and what the caller names.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Bridge } from "../../src/runtime/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
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

let bridge: Bridge;
let directory: string;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [name, value] of Object.entries(PLANTED)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  directory = mkdtempSync(join(tmpdir(), "ocb-tool-env-"));
  bridge = await Bridge.start({
    directory,
    modelServer: demoModelServer,
    server: { passEnv: ["PGPASSWORD", "OCB_E2E_NAMED"] },
  });
  trackProcess(bridge.server.pid, "opencode serve (tool env e2e)");
});

afterAll(async () => {
  await bridge?.close();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

it("a tool running `env` sees none of the bridge's own variables; what is passed, it sees", async () => {
  const session = await bridge.createSession({ title: "env" });
  const turn = await session.send('[[tool bash {"command":"env"}]]', { delivery: "queue" });
  const events = await collectTurn(turn);
  const output = events.flatMap((event) =>
    event.type === "tool.succeeded" ? [String(event.data.output ?? "")] : [],
  );
  expect(output).toHaveLength(1);
  const printed = output[0] ?? "";
  expect(printed).toContain("PATH="); // the command ran, and printed the environment
  for (const name of ["OCB_TOKEN", "OCB_ATTACH_PASSWORD", "OCB_STORE"] as const) {
    expect(printed).not.toContain(PLANTED[name]);
  }
  // A provider key by its usual name, and the names the caller passed, do reach it; `OCB_*`
  // never does, even when named.
  expect(printed).toContain(PLANTED.ANTHROPIC_API_KEY);
  expect(printed).toContain(PLANTED.PGPASSWORD);
  expect(printed).not.toContain(PLANTED.OCB_E2E_NAMED);
  // Nor is any of them in the transcript.
  const transcript = JSON.stringify(await session.transcript());
  expect(transcript).not.toContain(PLANTED.OCB_TOKEN);
  expect(transcript).not.toContain("planted-db-password");
});
