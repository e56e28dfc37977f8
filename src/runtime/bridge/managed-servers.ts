/**
 * The registry of managed servers kept in the store, for adoption: a bridge records the
 * `opencode serve` it runs, so that a successor on the same store (after this process was
 * killed) takes it up with its sessions and running turns instead of starting another.
 */
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { BackendKind } from "../../backends/backend.js";
import { AdoptedServer } from "../../server/adopted-server.js";
import { isolatedDirsAt } from "../../server/isolated-dirs.js";
import { isProcessGroupAlive } from "../../server/process-group.js";
import { sandboxSettings } from "../../server/sandbox/sandbox-options.js";
import type { StartOpencodeOptions } from "../../server/start-opencode.js";
import { SupervisedServer } from "../../server/supervised-server.js";
import type { ServerRecord, Store } from "../../store/store.js";
import type { Logger } from "../../util/logger.js";
import { isProcessRunning } from "../../util/process-liveness.js";
import { serverRecordProblem } from "./server-record-check.js";

/** Which managed server a store remembers: one per backend kind and directory. */
export function managedServerKey(kind: BackendKind, directory: string): string {
  return `managed:${kind}:${resolve(directory)}`;
}

/** What a server was started with, as the record keeps it: a different one starts a new server. */
export function startConfigHash(
  options: Pick<StartOpencodeOptions, "config" | "env" | "binary" | "sandbox">,
): string {
  const started: unknown[] = [options.config ?? {}, options.env ?? {}, options.binary ?? ""];
  // A server in another sandbox (or none) is not this one. Without one, the hash of the
  // versions before sandboxes: their servers are still taken up.
  const sandbox = sandboxSettings(options.sandbox);
  if (sandbox.mode !== "off") started.push(sandbox);
  return createHash("sha256").update(JSON.stringify(started)).digest("hex");
}

/**
 * What becomes of the server recorded under a key: nothing when there is none or its bridge
 * still runs it (that bridge is not ours to rob), taken up when it was started as this one
 * would be, else stopped.
 */
export function leftoverAction(
  record: ServerRecord | undefined,
  configHash: string,
  isRunning: (pid: number) => boolean = isProcessRunning,
): "none" | "take-up" | "stop" {
  // ownerPid 0: its bridge left it on purpose (`close({ leaveRunning: true })`), maybe from
  // this very process, which still runs.
  if (record === undefined || (record.ownerPid > 0 && isRunning(record.ownerPid))) return "none";
  return record.configHash === configHash ? "take-up" : "stop";
}

/**
 * The managed server: the one a previous bridge on this store left running for the same
 * directory and config (it was killed before it could stop it; its sessions and running turns
 * are there to adopt), else a new one. A leftover that cannot be taken up is stopped. The
 * server is recorded, and again after each restart.
 */
export async function managedServer(
  store: Store,
  kind: BackendKind,
  options: StartOpencodeOptions,
  logger: Logger,
): Promise<SupervisedServer> {
  const key = managedServerKey(kind, options.directory ?? process.cwd());
  const configHash = startConfigHash(options);
  const previous = await trustedRecord(await store.server(key), options, logger);
  const action = leftoverAction(previous, configHash);
  let server: SupervisedServer | undefined;
  if (previous !== undefined && action === "take-up") {
    server = await SupervisedServer.adopt(
      { ...previous, ...(previous.keeper === undefined ? {} : { keeperSocket: previous.keeper }) },
      options,
    );
    if (server !== undefined) {
      logger.info("took up the server a previous bridge left running", { url: server.url });
    }
  }
  if (previous !== undefined && action !== "none" && server === undefined) {
    await stopLeftover(previous, logger);
  }
  const started = server ?? (await SupervisedServer.start(options));
  const remember = () => rememberServer(store, key, started, configHash, logger);
  await remember();
  started.onRestart(() => void remember()); // a new process after a crash: a successor must find that one
  return started;
}

/** What the record of a running server is made of. */
export type RecordedServer = Pick<
  SupervisedServer,
  "url" | "username" | "pid" | "root" | "keeperSocket"
>;

/**
 * Records `server` under `key` as run by this process; a failure costs only a later take-up.
 * Not its password: its keeper holds that, and tells a successor (a store left by a killed
 * bridge, or any copy of it, carries no secret). Without a keeper there is nothing to take up.
 */
export async function rememberServer(
  store: Store,
  key: string,
  server: RecordedServer,
  configHash: string,
  logger: Logger,
): Promise<void> {
  if (server.pid === undefined) return;
  try {
    await store.saveServer(key, {
      url: server.url,
      username: server.username,
      pid: server.pid,
      ...(server.root === undefined ? {} : { root: server.root }),
      ownerPid: process.pid,
      configHash,
      ...(server.keeperSocket === undefined ? {} : { keeper: server.keeperSocket }),
    });
  } catch (error) {
    // Costs only the take-up after a crash of this process; the server runs.
    logger.warn("could not record the server in the store", { error });
  }
}

/**
 * Forgets a server stopped on purpose (nothing for a successor to take up), unless the record
 * is another bridge's by now (another pid).
 */
export function forgetServer(
  store: Store,
  key: string,
  pid: number | undefined,
  logger: Logger,
): Promise<void> {
  return whileOurs(store, key, pid, logger, "could not forget the server in the store", () =>
    store.deleteServer(key),
  );
}

/**
 * Marks the server recorded under `key` as left by its bridge (`ownerPid` 0), so that the next
 * bridge on this store takes it up even while this process still runs. A failure costs only
 * such an in-process successor's take-up: one in another process takes it up all the same.
 */
export function leaveServer(
  store: Store,
  key: string,
  pid: number | undefined,
  logger: Logger,
): Promise<void> {
  return whileOurs(
    store,
    key,
    pid,
    logger,
    "could not mark the server left in the store",
    (record) => store.saveServer(key, { ...record, ownerPid: 0 }),
  );
}

/** Changes the record under `key` while it is still server `pid`'s; a store failure only warns. */
async function whileOurs(
  store: Store,
  key: string,
  pid: number | undefined,
  logger: Logger,
  failure: string,
  change: (record: ServerRecord) => Promise<void>,
): Promise<void> {
  try {
    const record = await store.server(key);
    if (record !== undefined && record.pid === pid) await change(record);
  } catch (error) {
    logger.warn(failure, { error });
  }
}

/**
 * The record, when it is one this bridge could have written (`serverRecordProblem`); else
 * undefined, said at warn: it is neither taken up nor stopped, nothing of it is removed, and
 * the server started instead overwrites it.
 */
async function trustedRecord(
  record: ServerRecord | undefined,
  options: StartOpencodeOptions,
  logger: Logger,
): Promise<ServerRecord | undefined> {
  if (record === undefined) return undefined;
  const problem = await serverRecordProblem(record, {
    hostname: options.hostname,
    dataDir: options.dataDir,
  });
  if (problem === undefined) return record;
  logger.warn(
    `ignored the store's record of a managed server left running: ${problem}. It is neither ` +
      "taken up nor stopped, and nothing of it is removed; a new server is started (if the " +
      "store is shared, check who else writes its servers table)",
  );
  return undefined;
}

/** A leftover server of a dead bridge that cannot be taken up: stop it and remove its dirs. */
async function stopLeftover(record: ServerRecord, logger: Logger): Promise<void> {
  // A recorded pid may have been reused since (a reboot): only a group that still answers
  // as that server, with its password (its keeper's), is signalled.
  const leftover = await AdoptedServer.take({
    url: record.url,
    username: record.username,
    password: record.password,
    pid: record.pid,
    dirs: undefined,
    keeperSocket: record.keeper,
  });
  if (leftover !== undefined) {
    logger.info("stopping a server a previous bridge left running", { pid: record.pid });
    await leftover.close().catch(() => {});
  }
  if (record.root !== undefined && !isProcessGroupAlive(record.pid)) {
    await isolatedDirsAt(record.root).remove();
  }
}
