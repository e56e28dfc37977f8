/** `ocb serve`'s cluster options: what is missing or wrong is said before anything starts. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { silentLogger } from "../util/logger.js";
import {
  ATTACH_PASSWORD_ENV,
  attachedServer,
  CLUSTER_SECRET_ENV,
  clusterTrustOf,
  joinClusterIfAsked,
} from "./serve-cluster.js";
import { tlsOf } from "./serve-tls.js";

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

describe("ocb serve's cluster trust", () => {
  const token = "client-token-0123456789";
  const secret = "cluster-secret-0123456789";

  it("needs a cluster secret with --cluster, not the clients' token, and says what to set", () => {
    expect(() => clusterTrustOf({ cluster: true }, token, {})).toThrow(
      /set OCB_CLUSTER_SECRET or pass --cluster-secret-file/,
    );
    expect(() => clusterTrustOf({ cluster: true }, token, { [CLUSTER_SECRET_ENV]: token })).toThrow(
      /must differ from OCB_TOKEN/,
    );
    expect(() =>
      clusterTrustOf({ cluster: true }, token, { [CLUSTER_SECRET_ENV]: "short" }),
    ).toThrow(/at least 16 characters/);
    expect(clusterTrustOf({ cluster: true }, token, { [CLUSTER_SECRET_ENV]: secret })).toEqual({
      secret,
    });
    expect(clusterTrustOf({}, token, { [CLUSTER_SECRET_ENV]: secret })).toBeUndefined();
    expect(() => clusterTrustOf({ clusterInsecureHttp: true, clusterCa: "ca.pem" }, token)).toThrow(
      /--cluster-ca, --cluster-insecure-http need --cluster/,
    );
  });

  it("reads the secret and the CA from files; one that cannot be read is a usage error", () => {
    const dir = mkdtempSync(join(tmpdir(), "ocb-cluster-trust-"));
    try {
      writeFileSync(join(dir, "secret"), `${secret}\n`);
      writeFileSync(join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\n");
      const options = {
        cluster: true,
        clusterSecretFile: join(dir, "secret"),
        clusterCa: join(dir, "ca.pem"),
        clusterInsecureHttp: true,
      };
      expect(clusterTrustOf(options, token, {})).toEqual({
        secret,
        ca: "-----BEGIN CERTIFICATE-----\n",
        insecureHttp: true,
      });
      const missing = { cluster: true, clusterSecretFile: join(dir, "none") };
      expect(() => clusterTrustOf(missing, token, {})).toThrow(UsageError);
      expect(() => clusterTrustOf(missing, token, {})).toThrow(
        /--cluster-secret-file .*\(ENOENT\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--tls-cert and --tls-key go together", () => {
    expect(tlsOf({})).toBeUndefined();
    expect(() => tlsOf({ tlsCert: "cert.pem" })).toThrow(/go together/);
    expect(() => tlsOf({ tlsKey: "key.pem" })).toThrow(UsageError);
  });

  it("refuses at start a cluster address the other sidecars would refuse to call", async () => {
    const store = SqliteStore.open(":memory:");
    const join = (clusterAddress: string, clusterInsecureHttp?: boolean) =>
      joinClusterIfAsked(
        {
          ...where,
          cluster: true,
          attach: "http://127.0.0.1:4096",
          clusterAddress,
          ...(clusterInsecureHttp === undefined ? {} : { clusterInsecureHttp }),
        },
        ":memory:",
        store,
        silentLogger,
      );
    try {
      await expect(join("http://10.0.0.5:4000")).rejects.toThrow(
        /--cluster-address http:\/\/10\.0\.0\.5:4000 .* plain http to another machine/,
      );
      await expect(join("https://10.0.0.5:4000/prefix")).rejects.toThrow(/not a bare origin/);
      // Past the address check: the next thing said is the store's.
      await expect(join("http://10.0.0.5:4000", true)).rejects.toThrow(/needs a Postgres store/);
      await expect(join("https://node-a.internal:4000")).rejects.toThrow(/needs a Postgres store/);
    } finally {
      await store.close();
    }
  });
});
