/** opencode-bridge: drive the OpenCode coding agent reliably. */
export * from "./client/opencode-client.js";
export * from "./client/opencode2-client.js";
export type { ClientCallOptions, ClientStreamOptions } from "./client/operation-caller.js";
export * from "./client/wait-for-model.js";
export * from "./errors.js";
export {
  assertNever,
  CANONICAL_TYPES,
  type CanonicalEvent,
  type CanonicalEventOf,
  type CanonicalType,
  type ConnectionState,
  type DurableEventData,
  type DurableType,
  type EphemeralEventData,
  type EphemeralType,
  isCanonicalType,
  isDurableType,
  type NativeOrigin,
  type Outcome,
  type Usage,
} from "./events/canonical.js";
export * from "./protocol/index.js";
export * from "./runtime/index.js";
export * from "./server/index.js";
export * from "./transport/http-transport.js";
export * from "./transport/sse-reader.js";
export type * from "./transport/transport.js";
export type { Logger } from "./util/logger.js";
