/**
 * A sidecar's lease side in a process of its own, for a test to SIGKILL (a holder that dies
 * without releasing):
 *   lease-holder-child URL TTL_MS SESSION...
 * takes every SESSION's lease, prints "held <tokens>" and keeps renewing until killed.
 */
import { LeaseKeeper } from "../../src/cluster/lease-keeper.js";

const [url, ttl, ...sessions] = process.argv.slice(2);
if (url === undefined || ttl === undefined)
  throw new Error("usage: lease-holder-child URL TTL_MS SESSION...");
const keeper = await LeaseKeeper.open(url, {
  ttlMs: Number(ttl),
  renewEveryMs: 200,
  holderId: "child",
});
const tokens = await Promise.all(sessions.map((id) => keeper.acquire(id)));
process.stdout.write(`held ${tokens.join(",")}\n`);
setInterval(() => {}, 1_000); // the keeper's heartbeat is unref'd: keep the process up
