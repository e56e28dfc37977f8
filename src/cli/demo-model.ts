/** `--demo`'s model server, loaded only when asked for (the scripted model is test code). */
import type { ModelServerFactory } from "../runtime/bridge/model-server.js";

/** The scripted demo model's factory, imported on first use so a run without `--demo` skips it. */
export async function demoModelServer(): Promise<ModelServerFactory> {
  return (await import("../testing/demo-model-server.js")).demoModelServer;
}
