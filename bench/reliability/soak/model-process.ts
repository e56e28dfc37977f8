/**
 * The scripted model in a process of its own, for the soak: neither in the bridge's child
 * (whose memory is measured) nor in the suite's process (whose peak RSS is the other
 * scenarios'). It prints its URL, then serves until stdin closes or a SIGTERM. The soak reads
 * none of its recorded requests, so they are dropped every second instead of piling up over
 * thousands of turns.
 */
import { startScriptedModel } from "../../../src/testing/scripted-model/index.js";

const model = await startScriptedModel();
process.stdout.write(`${model.url}\n`);
const forget = setInterval(() => model.requests.splice(0), 1_000);
const stop = async (): Promise<void> => {
  clearInterval(forget);
  await model.close();
  process.exit(0);
};
process.stdin.on("end", () => void stop());
process.stdin.resume();
process.once("SIGTERM", () => void stop());
