/**
 * `opencode-bridge/protocol`: OpenCode's wire schemas (zod) and the typed clients and
 * transports that speak them. They follow OpenCode's own API, so they live apart from the
 * root entry: a schema change here is not a break of the canonical, root API.
 */
export * from "./opencode-client/opencode-client.js";
export {
  /**
   * The typed client for OpenCode 2.0. Unstable: it is pinned to one recorded 2.0.18 session
   * (seed 000) and may change with any 2.x release.
   */
  Opencode2Client as unstable_Opencode2Client,
} from "./opencode-client/opencode2-client.js";
export type { ClientCallOptions, ClientStreamOptions } from "./opencode-client/operation-caller.js";
export * from "./opencode-client/wait-for-model.js";
export * from "./opencode-protocol/index.js";
export * from "./transport/http-transport.js";
export * from "./transport/sse-reader.js";
export type * from "./transport/transport.js";
