/**
 * Which tool calls wait for an answer, as OpenCode's own `permission` config. The presets name
 * the common choices; anything else is passed through as the ruleset it is.
 */
import { UsageError } from "../../errors.js";

export type PermissionPreset = "ask" | "allow-all" | "read-only";

export const PERMISSION_PRESETS: Readonly<Record<PermissionPreset, Record<string, string>>> = {
  // File edits, shell commands and fetches wait for an answer; reading does not. A fetch asks:
  // a model the project's files talked round can send what it read to any address in its URL.
  ask: { edit: "ask", bash: "ask", webfetch: "ask" },
  "allow-all": { edit: "allow", bash: "allow", webfetch: "allow" },
  // Nothing that changes the project: edits and shell commands are refused without asking; a
  // fetch asks (it could carry what was read out).
  "read-only": { edit: "deny", bash: "deny", webfetch: "ask" },
};

/** The `permission` config for a preset name or a ruleset; a name we do not know is refused. */
export function permissionConfig(
  permissions: PermissionPreset | Record<string, unknown>,
): Record<string, unknown> {
  if (typeof permissions === "object" && permissions !== null) return permissions;
  const preset = PERMISSION_PRESETS[permissions as PermissionPreset];
  if (preset === undefined) {
    throw new UsageError(
      `permissions must be one of ${Object.keys(PERMISSION_PRESETS).join(", ")} or an OpenCode ` +
        `permission config object, got ${JSON.stringify(permissions)}`,
    );
  }
  return preset;
}
