/**
 * `ocb serve --cluster --attach X --dir D`: D is recorded as X's in the cluster, and a sidecar
 * attached to another server is refused at start, told which server serves D (a real
 * Postgres; no OpenCode: the refusal comes before the bridge starts).
 */
import { describe, expect, it } from "vitest";
import { usePostgres } from "../../test/support/use-postgres.js";
import { UsageError } from "../errors.js";
import { PostgresStore } from "../store/postgres-store.js";
import { silentLogger } from "../util/logger.js";
import { joinClusterIfAsked } from "./serve-cluster.js";

const postgres = usePostgres();

describe("ocb serve --cluster --dir", () => {
  it("records the directory as the attached server's, and refuses a sidecar attached to another", async () => {
    const url = await postgres.freshDatabase();
    const store = await PostgresStore.open(url);
    const join = (attach: string, clusterId: string) =>
      joinClusterIfAsked(
        { host: "127.0.0.1", port: 0, directory: "/srv/project", cluster: true, attach, clusterId },
        url,
        store,
        silentLogger,
      );
    try {
      const first = await join("http://opencode:pw-one-6c1d@one.test:4096", "a");
      expect(await first?.directories?.recorded("/srv/project")).toMatchObject({
        server: "http://one.test:4096",
        recordedBy: "a",
      });
      await first?.close();
      // Another sidecar of the same server joins; one of another server is refused.
      await (await join("http://one.test:4096/", "b"))?.close();
      const refused = await join("http://opencode:pw-two-9e2f@two.test:4096", "c").catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(UsageError);
      const message = (refused as Error).message;
      expect(message).toContain(
        "--dir /srv/project is served by the OpenCode server at http://one.test:4096 in this cluster (recorded by sidecar a",
      );
      expect(message).toContain("but --attach names http://two.test:4096");
      expect(message).not.toMatch(/pw-one|pw-two/);
    } finally {
      await store.close();
    }
  });
});
