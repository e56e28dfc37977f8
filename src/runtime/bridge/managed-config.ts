/**
 * The OpenCode config a bridge runs its own server (or `opencode run`) with: the user's config,
 * then what the model server needs, then the bridge's own options, each over the one before.
 */
import type { BridgeOptions } from "./bridge-options.js";
import { experimentalConfig } from "./experimental-config.js";
import { permissionConfig } from "./permission-presets.js";

/**
 * `options.config` with the model server's config over it (its provider must be usable, and
 * its `model` becomes the default), `permissions` as OpenCode's `permission` section, and
 * `continueAfterReject` merged into `experimental` (a contradiction is a UsageError).
 */
export function managedConfig(
  options: Pick<BridgeOptions, "config" | "permissions" | "continueAfterReject">,
  modelServerConfig: Record<string, unknown> | undefined,
): Record<string, unknown> {
  return {
    ...options.config,
    ...modelServerConfig,
    ...(options.permissions === undefined
      ? {}
      : { permission: permissionConfig(options.permissions) }),
    experimental: experimentalConfig(options.config?.experimental, options.continueAfterReject),
  };
}
