/**
 * End to end: a recording of a real session never contains a secret given to the server:
 * neither its password nor a provider API key (which `GET /config` and the `/api` model
 * catalog echo back), and the working directory is replaced by `<work>`.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import { waitForModel } from "../../src/opencode-client/wait-for-model.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { RecordingTransport } from "../../src/transport/transcript/recording-transport.js";
import { DEMO_MODEL, DEMO_MODEL_V2, openLegacyEvents } from "../scenarios/turns.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

const API_KEY = "sk-ocb-test-SECRET-0123456789abcdef";
let real: RealServer;
const file = join(tmpdir(), `ocb-secrets-${process.pid}.transcript.ndjson`);

beforeAll(async () => {
  real = await startRealServer({
    provider: {
      secretive: {
        npm: "@ai-sdk/openai-compatible",
        name: "Secretive",
        options: { baseURL: "http://127.0.0.1:9/v1", apiKey: API_KEY },
        models: { "m-1": { name: "M 1" } },
      },
    },
  });
  await waitForModel(real.client, DEMO_MODEL_V2);
});
afterAll(async () => {
  await real?.close();
  rmSync(file, { force: true });
});

it("keeps the password, provider keys and the directory out of the transcript", async () => {
  const password = real.server.password ?? "";
  expect(password.length).toBeGreaterThan(8);
  const recorder = new RecordingTransport(new HttpTransport({ url: real.server.url, password }), {
    directory: real.directory,
    secrets: [password, API_KEY],
    scenario: "secrets",
    version: "1.18.33",
  });
  const client = new OpencodeClient(recorder, { directory: real.directory });
  const config = await client.v2.model.list();
  expect(JSON.stringify(config)).toContain(API_KEY); // the server does echo it back …
  await client.session.create({ title: `password is ${password}` });
  const stream = await openLegacyEvents(client);
  const session = await client.session.create({ title: "secrets" });
  await client.session.promptAsync({
    sessionID: session.id,
    model: DEMO_MODEL,
    parts: [{ type: "text", text: `[[reply the key is ${API_KEY}]]` }],
  });
  await stream.idle(session.id);
  await stream.close();
  recorder.write(file);

  const text = readFileSync(file, "utf8");
  expect(text).not.toContain(password); // … and the recording does not.
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(Buffer.from(`opencode:${password}`).toString("base64"));
  expect(text).not.toContain(real.directory);
  expect(text).toContain("<redacted>");
  expect(text).toContain("<work>");
});
