/** The sidecar's wire: zod schemas shared by the server and `opencode-bridge/client`. */
export * from "./canonical-schema.js";
export * from "./http.js";
export * from "./ws.js";
