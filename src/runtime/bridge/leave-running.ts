/**
 * Closing a bridge while turns run, leaving them for adoption (`Bridge.close({ leaveRunning:
 * true })`): what it takes and what it reports. The successor is a bridge started on the same
 * store (`ocb serve` again): it takes up the server left running and, as a session is opened,
 * its running turn (see managed-servers.ts and `Bridge.openSession`).
 */
import type { BackendKind } from "../../backends/backend.js";

export interface CloseOptions {
  /**
   * When a turn still runs: stop following every session as a crash of this process would,
   * instead of ending the turns `failed` (`session-closed`) and stopping the server. The
   * turns go on upstream; the store keeps the sessions `open` with their cursors; a managed
   * server keeps running, its keeper stopping it `orphanTimeoutMs` later (default 5 min)
   * unless a bridge on the same store takes it up first. With no turn running, a plain close.
   * Not possible with a `modelServer` (it runs in this process, so it goes with it) or on the
   * `subprocess` backend (its turns are this process's children): there it closes as usual
   * and says why in `notLeft`.
   */
  leaveRunning?: boolean;
}

/** What `close()` left running for a successor. */
export interface LeftRunning {
  /** The turns left running upstream (empty when nothing was left). */
  turns: { sessionId: string; turnId: string }[];
  /** The managed server left running; absent for an attached one (never this bridge's). */
  server?: { pid: number; url: string; keptForMs: number };
  /** Why turns that ran were ended instead of left (`leaveRunning` could not be honoured). */
  notLeft?: string;
}

/** Why turns cannot be left running on this bridge, or undefined when they can. */
export function leavingRefusal(backend: BackendKind, ownsModelServer: boolean): string | undefined {
  if (ownsModelServer) {
    return "the model server runs in this process and stops with it, so no turn can go on without it";
  }
  if (backend === "subprocess") {
    return "the subprocess backend's turns are processes of this one and cannot outlive it";
  }
  return undefined;
}
