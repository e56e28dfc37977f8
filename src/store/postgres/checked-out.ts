/**
 * One connection checked out of a pool for a few statements (a transaction, a migration).
 * The pool listens for 'error' on idle connections only: one the server ends while it is
 * checked out (a restart, `pg_terminate_backend`, a network cut) emits 'error' besides failing
 * its statement, and unhandled, that event would end the process. So it is listened to while
 * checked out (the failed statement reports the failure), and a connection that failed is
 * dropped rather than handed to the next caller mid-transaction.
 */
import type pg from "pg";

export async function withCheckedOut<T>(
  pool: pg.Pool,
  use: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  client.on("error", ignoreCheckedOutError);
  let broken: unknown;
  try {
    return await use(client);
  } catch (error) {
    broken = error;
    throw error;
  } finally {
    client.removeListener("error", ignoreCheckedOutError);
    client.release(broken instanceof Error ? broken : undefined);
  }
}

function ignoreCheckedOutError(): void {}
