/** Managed and attached `opencode serve` processes. */
export {
  type AttachOpencodeOptions,
  attachOpencode,
  DEFAULT_ATTACH_TIMEOUT_MS,
} from "./attach-opencode.js";
export { basicAuthHeader, HEALTH_PATH, type HealthStatus, probeHealth } from "./health.js";
export { ISOLATED_DIR_PREFIX } from "./isolated-dirs.js";
export {
  OPENCODE_BIN_ENV,
  OPENCODE_VERSION,
  type PlatformTarget,
  platformPackageNames,
  type ResolveBinaryOptions,
  resolveOpencodeBinary,
} from "./resolve-binary.js";
export {
  SANDBOX_MODES,
  SANDBOX_NETWORKS,
  type SandboxMode,
  type SandboxNetwork,
  type SandboxOptions,
} from "./sandbox/sandbox-options.js";
export { DEFAULT_USERNAME, MANAGED_CONFIG_DEFAULTS } from "./server-env.js";
export type { OpencodeServerHandle, ServerExit } from "./server-handle.js";
export { DEFAULT_ORPHAN_TIMEOUT_MS } from "./server-keeper.js";
export {
  DEFAULT_STARTUP_TIMEOUT_MS,
  type StartOpencodeOptions,
  startOpencode,
} from "./start-opencode.js";
