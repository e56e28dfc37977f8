/**
 * The scripted model as a bridge's model server: `Bridge.start({ modelServer: demoModelServer })`
 * runs OpenCode on it, offline and without credentials (what `ocb run --demo` does). It lives
 * here, not in the runtime, so that the runtime does not depend on test helpers.
 */
import type { ModelServer, ModelServerFactory } from "../runtime/bridge/model-server.js";
import { demoProviderConfig, demoProviderId } from "./demo-provider.js";
import { startScriptedModel } from "./scripted-model/index.js";
import { scriptedModelId } from "./scripted-model/server.js";

const DEMO_KEPT_REQUESTS = 16;

/** Starts the scripted model; its provider is `demo`, its default model `demo/demo-1`. */
export const demoModelServer: ModelServerFactory = async ({ logger }): Promise<ModelServer> => {
  // Nobody reads a demo's requests: keep a few, or a long `npm start` grows with every turn.
  const model = await startScriptedModel({ logger, keepRequests: DEMO_KEPT_REQUESTS });
  return {
    // Offline by design: OpenCode's own free models (provider `opencode`) need the internet, and
    // a demo that offered them failed with "HTTP transport failed" once one was picked.
    config: { ...demoProviderConfig(model.url), disabled_providers: ["opencode"] },
    defaultModel: { providerID: demoProviderId, modelID: scriptedModelId },
    close: () => model.close(),
  };
};
