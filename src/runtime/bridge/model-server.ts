/**
 * A model server the bridge runs beside OpenCode (the scripted demo model, a local stub of
 * your own): started before the OpenCode server, which it is configured into, and stopped with
 * the bridge. The runtime knows only this shape; the demo model is one implementation, wired in
 * by whoever starts the bridge (`demoModelServer` in `opencode-bridge/testing`, `ocb --demo`).
 */
import type { Logger } from "../../util/logger.js";

/** A started model server. */
export interface ModelServer {
  /** OpenCode config that makes the server's models usable (merged over `BridgeOptions.config`). */
  readonly config: Record<string, unknown>;
  /** The model new sessions use unless `BridgeOptions.model` or a session names another. */
  readonly defaultModel: { providerID: string; modelID: string };
  /** Stops it; the bridge calls this once, after its OpenCode server stopped. */
  close(): Promise<void>;
}

/** Starts a model server for a bridge. */
export type ModelServerFactory = (options: { logger: Logger }) => Promise<ModelServer>;
