/** The MCP servers of a location and their state (`Bridge.mcpStatus`), read only. */

import type { OpencodeClient } from "../opencode-client/opencode-client.js";
import type { McpState } from "../opencode-protocol/legacy/location-lists.js";
import { clipText } from "../util/clip-text.js";

/** One configured MCP server. */
export interface McpServerInfo {
  /** Its name in OpenCode's config (`mcp.<name>`). */
  name: string;
  /** `connected`, `disabled`, `failed`, `needs_auth` or `needs_client_registration`. */
  status: string;
  /** Why it failed, as OpenCode says (untrusted text, bounded). */
  error?: string;
}

const MAX_ERROR_CHARS = 1_000;
/** More than anyone configures; a list past it is cut, not refused. */
const MAX_SERVERS = 200;

/** The entries of `GET /mcp` (name -> state), by name. */
export function mcpServers(status: Readonly<Record<string, McpState>>): McpServerInfo[] {
  return Object.entries(status)
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, MAX_SERVERS)
    .map(([name, state]) => ({
      name: clipText(name, 200),
      status: clipText(state.status, 40),
      ...(state.error === undefined ? {} : { error: clipText(state.error, MAX_ERROR_CHARS) }),
    }));
}

/** The MCP servers of `directory` and their state (none configured: an empty list). */
export async function listMcpServers(
  client: OpencodeClient,
  directory: string,
  signal?: AbortSignal,
): Promise<McpServerInfo[]> {
  return mcpServers(await client.mcp.status({ directory, ...(signal ? { signal } : {}) }));
}
