/** What the OpenCode server says about itself: up or not, and its model catalog. */

import type { ModelCatalog } from "../../wire/http.js";
import { callSignal } from "../call-bounds.js";
import type { SidecarContext } from "../context.js";

const HEALTH_TIMEOUT_MS = 3_000;

/** True when OpenCode answers its health probe (the subprocess backend has no server: true). */
export async function opencodeIsUp(ctx: SidecarContext): Promise<boolean> {
  if (ctx.bridge.backend === "subprocess") return true;
  try {
    const health = await ctx.bridge.client.global.health({
      signal: callSignal(ctx, HEALTH_TIMEOUT_MS),
    });
    return health.healthy;
  } catch {
    return false;
  }
}

/** The usable providers' models, with the bridge's default model. */
export async function modelCatalog(ctx: SidecarContext): Promise<ModelCatalog> {
  const fallback = defaultModel(ctx);
  if (ctx.bridge.backend === "subprocess") {
    return {
      models: fallback === undefined ? [] : [fallback],
      ...(fallback === undefined ? {} : { default: fallback }),
    };
  }
  const { providers } = await ctx.bridge.client.config.providers({ signal: callSignal(ctx) });
  const models = providers.flatMap((provider) =>
    Object.entries(provider.models).map(([modelID, info]) => {
      const name = nameOf(info);
      return { providerID: provider.id, modelID, ...(name === undefined ? {} : { name }) };
    }),
  );
  return { models, ...(fallback === undefined ? {} : { default: fallback }) };
}

function defaultModel(ctx: SidecarContext) {
  try {
    return ctx.bridge.defaultModel;
  } catch {
    return undefined; // no model configured: the catalog still lists what there is
  }
}

function nameOf(info: unknown): string | undefined {
  if (typeof info !== "object" || info === null || !("name" in info)) return undefined;
  return typeof info.name === "string" ? info.name : undefined;
}
