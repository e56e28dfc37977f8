/**
 * The OpenCode configuration that makes the scripted model OpenCode's model,
 * for tests and for the CLI's built-in demo.
 */
import { scriptedModelId, scriptedModelIds } from "./scripted-model/server.js";

/** A second model id the demo provider offers (served by the same scripted model). */
export const secondScriptedModelId = scriptedModelIds[1] ?? "demo-2";

function scriptedModelEntry(name: string): DemoModelConfig {
  return {
    name,
    tool_call: true,
    reasoning: true,
    attachment: true,
    modalities: { input: ["text", "image"], output: ["text"] },
  };
}

/** The provider id the fragment registers. */
export const demoProviderId = "demo";

/** The `provider/model` reference of the scripted model under `demoProviderConfig`. */
export const demoModelRef = `${demoProviderId}/${scriptedModelId}`;

/** One model entry of OpenCode's provider config (the fields the scripted model needs). */
export interface DemoModelConfig {
  name: string;
  tool_call: boolean;
  reasoning: boolean;
  attachment: boolean;
  /** Without `image` here OpenCode replaces attached images by an "unsupported" note. */
  modalities: { input: ("text" | "image")[]; output: "text"[] };
}

/** The `provider` and `model` part of an OpenCode config; merge it into `opencode.json` or `OPENCODE_CONFIG_CONTENT`. */
export interface DemoProviderConfig {
  provider: {
    demo: {
      npm: "@ai-sdk/openai-compatible";
      name: string;
      options: { baseURL: string; apiKey: string };
      models: Record<string, DemoModelConfig>;
    };
  };
  model: string;
}

/**
 * The OpenCode config fragment that points provider `demo` at a scripted model
 * running at `baseURL` (its `url`, ending in `/v1`) and selects `demo/demo-1`.
 * The names say "scripted" so nobody mistakes its replies for an LLM's.
 */
export function demoProviderConfig(baseURL: string): DemoProviderConfig {
  return {
    provider: {
      demo: {
        npm: "@ai-sdk/openai-compatible",
        name: "Demo (scripted)",
        // Sent as a Bearer token by the AI SDK client; the scripted model ignores it.
        options: { baseURL, apiKey: "scripted" },
        models: {
          [scriptedModelId]: scriptedModelEntry("Scripted demo model (not an LLM)"),
          // The same scripted server under a second id, so that switching models can be shown.
          [secondScriptedModelId]: scriptedModelEntry("Scripted demo model 2 (not an LLM)"),
        },
      },
    },
    model: demoModelRef,
  };
}
