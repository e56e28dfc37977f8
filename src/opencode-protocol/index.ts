export * from "./api/events.js";
export * as api from "./api/session.js";
export * from "./common.js";
export * from "./legacy/events.js";
export * as lists from "./legacy/location-lists.js";
export * from "./legacy/parts.js";
export * as legacy from "./legacy/session.js";
export * from "./operations.js";
export * from "./v2/events.js";
