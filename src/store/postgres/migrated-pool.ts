/**
 * Opening a pool on the store's database: connected once (so that a wrong URL fails at open,
 * not at the first write) and the schema brought up to date. The store and the cluster's parts
 * (which keep pools of their own) open theirs this way, so whichever comes first migrates.
 */
import pg from "pg";
import { OpencodeBridgeError } from "../../errors.js";
import { withCheckedOut } from "./checked-out.js";
import { cannotOpen, type PostgresTarget } from "./connection.js";
import { migratePostgres } from "./migrations.js";

/**
 * A pool with `config` (default: the target's) on a migrated database. An unreachable server,
 * a refused login, a missing database or one written by a newer opencode-bridge fail with
 * `UsageError`, without the password.
 */
export async function openMigratedPool(
  target: PostgresTarget,
  config: pg.PoolConfig = target.config,
): Promise<pg.Pool> {
  const pool = new pg.Pool(config);
  // An idle connection the server drops emits 'error' on the pool; unhandled, it would end
  // the process. The next statement reports the failure where it matters.
  pool.on("error", () => {});
  try {
    await withCheckedOut(pool, (client) => migratePostgres(client, target.description));
    return pool;
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof OpencodeBridgeError) throw error;
    throw cannotOpen(target, error);
  }
}
