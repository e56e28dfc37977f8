/**
 * A sidecar's lease side in a process of its own, for a test or a bench to SIGKILL (a holder
 * that dies without releasing):
 *   lease-holder-child URL TTL_MS RENEW_MS SESSION...
 * takes every SESSION's lease, prints "held <tokens>" and keeps renewing until killed.
 */
import { LeaseKeeper } from "../../src/cluster/lease-keeper.js";

const [url, ttl, renew, ...sessions] = process.argv.slice(2);
if (url === undefined || ttl === undefined || renew === undefined) {
  throw new Error("usage: lease-holder-child URL TTL_MS RENEW_MS SESSION...");
}
const keeper = await LeaseKeeper.open(url, {
  ttlMs: Number(ttl),
  renewEveryMs: Number(renew),
  holderId: `child-${process.pid}`,
});
const tokens = await Promise.all(sessions.map((id) => keeper.acquire(id)));
process.stdout.write(`held ${tokens.join(",")}\n`);
setInterval(() => {}, 1_000); // the keeper's heartbeat is unref'd: keep the process up
