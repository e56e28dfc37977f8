/**
 * Which tool calls wait for an answer, as OpenCode's own `permission` config. The presets name
 * the common choices; anything else is passed through as the ruleset it is.
 */
import { UsageError } from "../errors.js";

export type PermissionPreset = "ask" | "allow-all" | "read-only";

export const PERMISSION_PRESETS: Readonly<Record<PermissionPreset, Record<string, string>>> = {
  // File edits and shell commands wait for an answer; reading and fetching do not.
  ask: { edit: "ask", bash: "ask", webfetch: "allow" },
  "allow-all": { edit: "allow", bash: "allow", webfetch: "allow" },
  // Nothing that changes the project: edits and shell commands are refused without asking.
  "read-only": { edit: "deny", bash: "deny", webfetch: "allow" },
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
