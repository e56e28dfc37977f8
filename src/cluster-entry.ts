/**
 * `opencode-bridge/cluster`: what only sidecars sharing one Postgres use: the membership
 * (leases, the durable feed) and the refusal of an append whose lease was taken over. See
 * docs/deployment.md#a-cluster-of-sidecars-on-one-postgres.
 */
export {
  ClusterMember,
  type ClusterOptions,
  type StoppedDriving,
} from "./cluster/cluster-member.js";
export { type AppendFence, FencedAppendError } from "./store/postgres-store.js";
