export * from "./bridge.js";
export * from "./session.js";
export * from "./turn.js";
export type { WatchdogBounds } from "./watchdog.js";
