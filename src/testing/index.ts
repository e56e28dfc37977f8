/** Helpers for testing against a real `opencode` binary (exported as `opencode-bridge/testing`). */
export * from "./demo-provider.js";
export * from "./scripted-model/index.js";
