/**
 * A bridge in a process of its own, for tests that kill it: attaches to a server, opens a
 * session on the given store, sends one prompt and reports on stdout (`session <id>`, then
 * `sent`, then `delta` at the first delta), then waits to be killed.
 */
import { Bridge } from "../../src/runtime/bridge.js";

const [url, password, storePath, directory, prompt] = process.argv.slice(2);
if (!url || !password || !storePath || !directory || !prompt) {
  process.stderr.write("usage: bridge-child URL PASSWORD STORE DIRECTORY PROMPT\n");
  process.exit(2);
}
const bridge = await Bridge.start({
  directory,
  attach: { url, password },
  store: storePath,
  model: { providerID: "demo", modelID: "demo-1" },
});
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
