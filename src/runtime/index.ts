export * from "./bridge.js";
export { DEFAULT_CONNECTION_LOST_AFTER_MS } from "./connection-watch.js";
export * from "./session.js";
export * from "./turn.js";
export type { WatchdogBounds } from "./watchdog.js";
