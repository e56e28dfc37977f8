/**
 * Sessions' project directories, as far as this machine can tell: OpenCode answers a
 * directory that is not there with an opaque 500 (and a session's event stream with endless
 * ones), so the sidecar checks first, where it can.
 */
import { stat } from "node:fs/promises";
import type { Bridge } from "../runtime/bridge/bridge.js";
import { ApiError } from "./errors.js";

/**
 * Whether sessions' directories are on this machine: with a managed server or `opencode run`
 * they are; an attached server's may be on another.
 */
export function directoriesAreLocal(bridge: Bridge): boolean {
  if (bridge.backend === "subprocess") return true;
  try {
    return bridge.server.pid !== undefined;
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `directory` is known to be gone (removed since a session was made in it). */
export async function directoryGone(bridge: Bridge, directory: string): Promise<boolean> {
  return directoriesAreLocal(bridge) && !(await isDirectory(directory));
}

/**
 * What a session whose directory is gone answers to being opened or continued: it can be read,
 * not driven (an older `--demo`'s temp dir, a checkout removed).
 */
export class DirectoryGoneError extends ApiError {
  constructor(sessionId: string, directory: string) {
    super(
      "conflict",
      `session ${sessionId}'s directory ${directory} no longer exists, so it cannot take turns (its transcript can still be read): start a new session, or create the directory again`,
    );
    this.name = "DirectoryGoneError";
  }
}
