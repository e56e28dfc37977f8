/**
 * Sessions' project directories, as far as this machine can tell: OpenCode answers a
 * directory that is not there with an opaque 500, so the routes check first, where they can.
 */
import { stat } from "node:fs/promises";
import type { SidecarContext } from "../context.js";

/**
 * Whether sessions' directories are on this machine: with a managed server or `opencode run`
 * they are; an attached server's may be on another.
 */
export function directoriesAreLocal(ctx: SidecarContext): boolean {
  if (ctx.bridge.backend === "subprocess") return true;
  try {
    return ctx.bridge.server.pid !== undefined;
  } catch {
    return false;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
