/** Helpers for testing against a real `opencode` binary (exported as `opencode-bridge/testing`). */

export * from "../transport/transcript/normalize.js";
export * from "../transport/transcript/recording-transport.js";
export * from "../transport/transcript/replay-mismatch-error.js";
export * from "../transport/transcript/replay-transport.js";
export { REDACTED, sanitize } from "../transport/transcript/sanitize.js";
export * from "../transport/transcript/transcript.js";
export * from "./demo-model-server.js";
export * from "./demo-provider.js";
export * from "./scripted-model/index.js";
