/**
 * The watch on a busy session: the stall watchdog while the streams reach the server; while
 * they do not, silence says nothing about the run, and the connection-lost bound takes its
 * place. Whoever changes what runs, or hears the connection change, re-arms it (`update`).
 */
import type { Capabilities } from "../../backends/capabilities.js";
import type { ConnectionWatch } from "./connection-watch.js";
import { watchPhase } from "./run-state.js";
import type { SessionState } from "./session-state.js";
import type { Watchdog } from "./watchdog.js";

export interface RunWatchParts {
  state: SessionState;
  connection: ConnectionWatch;
  watchdog: Watchdog;
  /** The backend's capabilities (the backend is made after this). */
  capabilities: () => Capabilities;
}

export class RunWatch {
  readonly #parts: RunWatchParts;

  constructor(parts: RunWatchParts) {
    this.#parts = parts;
  }

  /** Arms what watches the session for what runs now (nothing once it is closed). */
  update(): void {
    const { state, connection, watchdog, capabilities } = this.#parts;
    connection.watch(!state.closed && state.running);
    if (!connection.connected) watchdog.stop();
    else watchdog.update(watchPhase(state.run, capabilities().liveToolCalls));
  }

  /** The session closed: nothing is watched any more. */
  stop(): void {
    this.#parts.watchdog.stop();
    this.#parts.connection.stop();
  }
}
