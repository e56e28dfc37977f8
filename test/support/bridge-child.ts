/**
 * A bridge in a process of its own, for tests that kill it: opens a session on the given store
 * (attached to a server, or running its own managed one against the given scripted model),
 * sends one prompt and reports on stdout (`session <id>`, `sent`, then `delta` at the first
 * delta), then waits to be killed.
 *
 *   bridge-child STORE DIRECTORY PROMPT attach URL PASSWORD
 *   bridge-child STORE DIRECTORY PROMPT managed MODEL_URL
 *   bridge-child STORE DIRECTORY PROMPT managed demo   (the model server runs in this process)
 *
 * `ORPHAN_TIMEOUT_MS` in the environment sets the managed server's `orphanTimeoutMs`.
 */
import { Bridge, type BridgeOptions } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";

const [storePath, directory, prompt, mode, target, password] = process.argv.slice(2);
if (!storePath || !directory || !prompt || !target || (mode !== "attach" && mode !== "managed")) {
  process.stderr.write(
    "usage: bridge-child STORE DIRECTORY PROMPT attach|managed URL [PASSWORD]\n",
  );
  process.exit(2);
}
const where: Partial<BridgeOptions> =
  mode === "attach"
    ? { attach: { url: target, password: password ?? "" } }
    : {
        ...(target === "demo"
          ? { modelServer: demoModelServer }
          : { config: { ...demoProviderConfig(target) } }),
        ...(process.env.ORPHAN_TIMEOUT_MS === undefined
          ? {}
          : { server: { orphanTimeoutMs: Number(process.env.ORPHAN_TIMEOUT_MS) } }),
      };
const bridge = await Bridge.start({
  directory,
  store: storePath,
  model: { providerID: "demo", modelID: "demo-1" },
  ...where,
});
if (mode === "managed") process.stdout.write(`server ${bridge.server.pid}\n`);
const session = await bridge.createSession({ title: "adopt" });
process.stdout.write(`session ${session.id}\n`);
const turn = await session.send(prompt, { delivery: "queue" });
process.stdout.write("sent\n");
for await (const event of turn.events()) {
  if (event.type === "text.delta") {
    process.stdout.write("delta\n");
    break;
  }
}
setInterval(() => {}, 60_000); // wait for the kill
