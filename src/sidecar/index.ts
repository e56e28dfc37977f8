/**
 * `opencode-bridge/sidecar`: the HTTP + WebSocket service of `ocb serve`, for an application
 * that starts it inside its own process (a desktop app, a test) over a bridge it owns.
 * See docs/sidecar.md.
 */

export {
  ClusterMember,
  type ClusterOptions,
  type StoppedDriving,
} from "../cluster/cluster-member.js";
export type { ClusterTrustOptions } from "../cluster/sidecar/cluster-trust.js";
export type { SidecarLimits } from "./limits.js";
export type { LogFormat } from "./log-lines.js";
export { SidecarMetrics } from "./metrics.js";
export {
  type Sidecar,
  type SidecarOptions,
  type SidecarRemoteOptions,
  type SidecarTls,
  startSidecar,
} from "./sidecar.js";
