/** A test file's Postgres (test/support/postgres.ts) as vitest hooks. */
import { afterAll, beforeAll } from "vitest";
import { startTestPostgres, type TestPostgres } from "./postgres.js";

/**
 * Vitest hooks for a file: one server started before its tests and stopped after them. The
 * returned object's `server` is set once `beforeAll` ran.
 */
export function usePostgres(): { readonly server: TestPostgres; freshDatabase(): Promise<string> } {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(async () => {
    await server?.close();
  });
  const started = (): TestPostgres => {
    if (server === undefined) throw new Error("usePostgres: the server starts in beforeAll");
    return server;
  };
  return {
    get server() {
      return started();
    },
    freshDatabase: () => started().freshDatabase(),
  };
}
