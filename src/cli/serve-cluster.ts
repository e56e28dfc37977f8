/**
 * `ocb serve`'s cluster options (docs/deployment.md, "A cluster of sidecars"): `--cluster`
 * joins the sidecar to the cluster of its Postgres store, `--cluster-address` says where the
 * others reach it, `--attach` names the OpenCode server this sidecar drives (its password in
 * `OCB_ATTACH_PASSWORD`, never on the command line). The cluster records which server serves
 * each directory: a sidecar whose `--dir` is recorded for another server is refused at start.
 * The sidecars call each other with a secret of their own (`OCB_CLUSTER_SECRET` or
 * `--cluster-secret-file`, not `OCB_TOKEN`), over https verified against `--cluster-ca`, or
 * plain http on loopback (beyond it only with `--cluster-insecure-http`).
 */
import type { Command } from "commander";
import type { ClusterMember } from "../cluster/cluster-member.js";
import { checkPeerAddress } from "../cluster/peer-address.js";
import type { ClusterTrustOptions } from "../cluster/sidecar/cluster-trust.js";
import { UsageError } from "../errors.js";
import { weakSecretProblem } from "../sidecar/secret-rules.js";
import type { Store } from "../store/store.js";
import type { Logger } from "../util/logger.js";
import { readOptionFile } from "./option-file.js";

export interface ClusterServeOptions {
  cluster?: boolean;
  clusterAddress?: string;
  clusterId?: string;
  attach?: string;
  clusterSecretFile?: string;
  clusterCa?: string;
  clusterInsecureHttp?: boolean;
  /** The sidecar serves https (`--tls-cert`): its default cluster address is `https://`. */
  tlsCert?: string;
}

/** The environment variable that holds the attached server's password. */
export const ATTACH_PASSWORD_ENV = "OCB_ATTACH_PASSWORD";

/** The environment variable that holds the cluster's secret (else `--cluster-secret-file`). */
export const CLUSTER_SECRET_ENV = "OCB_CLUSTER_SECRET";

export function addClusterOptions(command: Command): Command {
  return command
    .option(
      "--attach <url>",
      `drive the OpenCode server at <url> instead of starting one (its password in $${ATTACH_PASSWORD_ENV})`,
    )
    .option(
      "--cluster",
      "join the cluster of sidecars on the --store Postgres database (needs --attach; docs/deployment.md)",
    )
    .option(
      "--cluster-address <url>",
      "where the other sidecars and clients reach this one (default: http://<host>:<port> with --port)",
    )
    .option("--cluster-id <id>", "this sidecar's id in the cluster (default: a new random one)")
    .option(
      "--cluster-secret-file <file>",
      `file holding the secret the sidecars call each other with (else $${CLUSTER_SECRET_ENV}; not OCB_TOKEN)`,
    )
    .option(
      "--cluster-ca <file>",
      "CA certificate(s) (PEM) the other sidecars' https certificates must chain to",
    )
    .option(
      "--cluster-insecure-http",
      "send the cluster secret over plain http beyond loopback (only on a network nobody can listen on)",
    );
}

/**
 * How this sidecar trusts the others of its cluster, with `--cluster`: the secret (from
 * `--cluster-secret-file`, else `OCB_CLUSTER_SECRET`; required, and not the clients' token),
 * the CA file, the plain http opt-in. Undefined without `--cluster`.
 */
export function clusterTrustOf(
  options: ClusterServeOptions,
  token: string,
  env: NodeJS.ProcessEnv = process.env,
): ClusterTrustOptions | undefined {
  if (options.cluster !== true) {
    const given = [
      options.clusterSecretFile === undefined ? [] : ["--cluster-secret-file"],
      options.clusterCa === undefined ? [] : ["--cluster-ca"],
      options.clusterInsecureHttp === true ? ["--cluster-insecure-http"] : [],
    ].flat();
    if (given.length > 0) throw new UsageError(`${given.join(", ")} need --cluster`);
    return undefined;
  }
  const secret =
    options.clusterSecretFile === undefined
      ? env[CLUSTER_SECRET_ENV]
      : readOptionFile("--cluster-secret-file", options.clusterSecretFile).trim();
  if (secret === undefined || secret === "") {
    throw new UsageError(
      `--cluster needs the cluster's secret, which its sidecars call each other with: set ` +
        `${CLUSTER_SECRET_ENV} or pass --cluster-secret-file <file>, the same on every sidecar ` +
        "of the cluster and different from OCB_TOKEN (generate one: openssl rand -hex 32)",
    );
  }
  const weak = weakSecretProblem("the cluster secret", secret);
  if (weak !== undefined) throw new UsageError(weak);
  if (secret === token) {
    throw new UsageError(
      `the cluster secret must differ from OCB_TOKEN: a client's token must not let it call as ` +
        `a sidecar of the cluster; set ${CLUSTER_SECRET_ENV} to another secret (openssl rand -hex 32)`,
    );
  }
  return {
    secret,
    ...(options.clusterCa === undefined
      ? {}
      : { ca: readOptionFile("--cluster-ca", options.clusterCa) }),
    ...(options.clusterInsecureHttp === true ? { insecureHttp: true } : {}),
  };
}

/** The attached server the options name, if any. */
export function attachedServer(
  options: ClusterServeOptions,
  env: NodeJS.ProcessEnv = process.env,
): { url: string; password?: string } | undefined {
  if (options.attach === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(options.attach);
  } catch {
    throw new UsageError(
      `--attach ${JSON.stringify(options.attach)} is not a URL; pass http://host:port`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--attach needs an http:// or https:// URL, not ${url.protocol}`);
  }
  const password = env[ATTACH_PASSWORD_ENV];
  return { url: url.href.replace(/\/$/, ""), ...(password ? { password } : {}) };
}

/**
 * With `--cluster`, joins the cluster of `store` (which must be a Postgres store) and gives
 * the member; otherwise undefined. Checks the options first: a usage error says what is
 * missing. `directory` (the `--dir`) is recorded as the attached server's, or refused when
 * the cluster records another server for it.
 */
export async function joinClusterIfAsked(
  options: ClusterServeOptions & { host: string; port: number; directory: string },
  storeUrl: string,
  store: Store,
  logger: Logger,
): Promise<ClusterMember | undefined> {
  if (options.cluster !== true) {
    if (options.clusterAddress !== undefined || options.clusterId !== undefined) {
      throw new UsageError("--cluster-address and --cluster-id need --cluster");
    }
    return undefined;
  }
  if (options.attach === undefined) {
    throw new UsageError(
      "--cluster needs --attach <url>: in a cluster the OpenCode server is attached (a managed " +
        "one stops with its sidecar, and no other sidecar could take its sessions over)",
    );
  }
  const scheme = options.tlsCert === undefined ? "http" : "https";
  const address =
    options.clusterAddress ??
    (options.port === 0 ? undefined : `${scheme}://${options.host}:${options.port}`);
  if (address !== undefined) refuseAnAddressPeersRefuse(address, options);
  const [{ PostgresStore }, { ClusterMember }] = await Promise.all([
    import("../store/postgres-store.js"),
    import("../cluster/cluster-member.js"),
  ]);
  if (!(store instanceof PostgresStore)) {
    throw new UsageError(
      "--cluster needs a Postgres store: pass --store postgres://… (or set OCB_STORE); " +
        "the sidecars of a cluster share their sessions through it",
    );
  }
  const member = await ClusterMember.join(storeUrl, store, {
    logger,
    server: options.attach,
    ...(address === undefined ? {} : { address }),
    ...(options.clusterId === undefined ? {} : { holderId: options.clusterId }),
  });
  try {
    await refuseAnotherServersDirectory(member, options.directory);
    return member;
  } catch (error) {
    await member.close();
    throw error;
  }
}

/**
 * The other sidecars would refuse to call this one at `address` (a path, or plain http beyond
 * loopback without the opt-in): said at start, with what to do, rather than by every command.
 */
function refuseAnAddressPeersRefuse(address: string, options: ClusterServeOptions): void {
  const check = checkPeerAddress(address, { insecureHttp: options.clusterInsecureHttp === true });
  if (check.ok) return;
  const flag =
    options.clusterAddress === undefined ? "the default cluster address" : "--cluster-address";
  throw new UsageError(
    `${flag} ${address} is one the other sidecars would refuse to call: ${check.problem}`,
  );
}

/**
 * A sidecar attached to one server whose `--dir` the cluster records for another would
 * refuse every session it was asked to create there: it is refused at start instead, with
 * what to do. (Sessions of other directories are checked each on its own when used.)
 */
async function refuseAnotherServersDirectory(
  member: ClusterMember,
  directory: string,
): Promise<void> {
  const directories = member.directories;
  if (directories === undefined) return;
  const record = await directories.claim(directory);
  if (record.server === directories.server) return;
  throw new UsageError(
    `--dir ${directory} is served by the OpenCode server at ${record.server} in this cluster ` +
      `(recorded by sidecar ${record.recordedBy} at ${new Date(record.recordedAt).toISOString()}), ` +
      `but --attach names ${directories.server}. Attach to ${record.server}, or pass another ` +
      "--dir; if the directory moved to this server, delete its record first " +
      "(DELETE FROM directory_servers WHERE directory = '…'; docs/deployment.md)",
  );
}
