/**
 * A directory a client names, for a new session or for what a project offers (its agents,
 * commands, MCP servers, skills): absolute, there, and one this sidecar allows, else an
 * ApiError that says which of the three it is not.
 */
import { isAbsolute } from "node:path";
import { callSignal } from "./call-bounds.js";
import type { SidecarContext } from "./context.js";
import { ApiError } from "./errors.js";
import { directoryGone } from "./local-directories.js";

export async function requestedDirectory(
  ctx: Pick<SidecarContext, "bridge" | "allowedDirectories">,
  directory: string | undefined,
): Promise<string | undefined> {
  if (directory === undefined) return undefined;
  refuseRelative(directory);
  // OpenCode answers a directory that is not there with a 500 of its own.
  if (await directoryGone(ctx.bridge, directory)) {
    throw new ApiError(
      "invalid_request",
      `directory ${JSON.stringify(directory)} does not exist or is not a directory; create it first`,
    );
  }
  await refuseNotAllowed(ctx, directory);
  return directory;
}

/**
 * Absolute and allowed, whether or not it is there (the directory of one of OpenCode's own
 * sessions, say), else the ApiError saying which it is not.
 */
export async function allowedDirectory(
  ctx: Pick<SidecarContext, "allowedDirectories">,
  directory: string,
): Promise<void> {
  refuseRelative(directory);
  await refuseNotAllowed(ctx, directory);
}

function refuseRelative(directory: string): void {
  if (!isAbsolute(directory)) {
    throw new ApiError(
      "invalid_request",
      `directory must be an absolute path, got ${JSON.stringify(directory)}`,
    );
  }
}

async function refuseNotAllowed(
  ctx: Pick<SidecarContext, "allowedDirectories">,
  directory: string,
): Promise<void> {
  if (!(await ctx.allowedDirectories.allows(directory))) {
    throw new ApiError("forbidden", ctx.allowedDirectories.refusal(directory));
  }
}

/** The options of a list of what a project offers: its directory, checked, and the call's bound. */
export async function projectQuery(
  ctx: SidecarContext,
  directory: string | undefined,
): Promise<{ directory?: string; signal: AbortSignal }> {
  const checked = await requestedDirectory(ctx, directory);
  return { ...(checked === undefined ? {} : { directory: checked }), signal: callSignal(ctx) };
}
