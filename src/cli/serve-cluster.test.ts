/** `ocb serve`'s cluster options: what is missing or wrong is said before anything starts. */
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { silentLogger } from "../util/logger.js";
import { ATTACH_PASSWORD_ENV, attachedServer, joinClusterIfAsked } from "./serve-cluster.js";

const where = { host: "127.0.0.1", port: 0, directory: "/srv/project" };

describe("ocb serve --cluster", () => {
  it("is refused without --attach, and on a store that is not Postgres", async () => {
    const store = SqliteStore.open(":memory:");
    try {
      await expect(
        joinClusterIfAsked({ ...where, cluster: true }, ":memory:", store, silentLogger),
      ).rejects.toThrow(/--cluster needs --attach <url>/);
      await expect(
        joinClusterIfAsked(
          { ...where, cluster: true, attach: "http://127.0.0.1:4096" },
          ":memory:",
          store,
          silentLogger,
        ),
      ).rejects.toThrow(/--cluster needs a Postgres store: pass --store postgres:\/\//);
      await expect(
        joinClusterIfAsked({ ...where, clusterId: "a" }, ":memory:", store, silentLogger),
      ).rejects.toThrow(/--cluster-address and --cluster-id need --cluster/);
      expect(await joinClusterIfAsked(where, ":memory:", store, silentLogger)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("--attach takes an http(s) URL, its password from the environment only", () => {
    expect(
      attachedServer({ attach: "http://host:4096/" }, { [ATTACH_PASSWORD_ENV]: "pw" }),
    ).toEqual({ url: "http://host:4096", password: "pw" });
    expect(attachedServer({ attach: "http://host:4096" }, {})).toEqual({ url: "http://host:4096" });
    expect(attachedServer({}, {})).toBeUndefined();
    expect(() => attachedServer({ attach: "host:4096" }, {})).toThrow(UsageError);
    expect(() => attachedServer({ attach: "nonsense" }, {})).toThrow(/is not a URL/);
  });
});
