/**
 * `ocb serve`'s cluster options (docs/deployment.md, "A cluster of sidecars"): `--cluster`
 * joins the sidecar to the cluster of its Postgres store, `--cluster-address` says where the
 * others reach it, `--attach` names the OpenCode server this sidecar drives (its password in
 * `OCB_ATTACH_PASSWORD`, never on the command line). The cluster records which server serves
 * each directory: a sidecar whose `--dir` is recorded for another server is refused at start.
 */
import type { Command } from "commander";
import type { ClusterMember } from "../cluster/cluster-member.js";
import { UsageError } from "../errors.js";
import type { Store } from "../store/store.js";
import type { Logger } from "../util/logger.js";

export interface ClusterServeOptions {
  cluster?: boolean;
  clusterAddress?: string;
  clusterId?: string;
  attach?: string;
}

/** The environment variable that holds the attached server's password. */
export const ATTACH_PASSWORD_ENV = "OCB_ATTACH_PASSWORD";

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
    .option("--cluster-id <id>", "this sidecar's id in the cluster (default: a new random one)");
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
  const address =
    options.clusterAddress ??
    (options.port === 0 ? undefined : `http://${options.host}:${options.port}`);
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
