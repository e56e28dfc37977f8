/**
 * The tests' Postgres (test/support/postgres.ts): each caller gets an empty database of its own,
 * and a closed server leaves no process behind (as the browser tests check of Chromium).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { startTestPostgres, TEST_POSTGRES_ENV } from "../support/postgres.js";
import { isRunning } from "../support/process-tracker.js";

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe("the tests' Postgres", () => {
  it("gives each caller a fresh database, and a closed server leaves no process", async () => {
    const server = await startTestPostgres();
    try {
      const one = await server.freshDatabase();
      const two = await server.freshDatabase();
      expect(one).not.toBe(two);
      const client = new pg.Client({ connectionString: one, connectionTimeoutMillis: 10_000 });
      await client.connect();
      await client.query("CREATE TABLE t (x int)");
      await client.end();
      expect(await tables(one)).toEqual(["t"]);
      expect(await tables(two)).toEqual([]);
    } finally {
      await server.close();
    }
    // With OCB_TEST_POSTGRES the server is not ours to stop (and has no pid here).
    if (process.env[TEST_POSTGRES_ENV] === undefined) {
      expect(server.pid).toBeTypeOf("number");
      expect(isRunning(server.pid ?? 0)).toBe(false);
    }
  });
});
