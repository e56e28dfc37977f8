import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recordingLogger } from "../../../test/support/recording-logger.js";
import { IN_MEMORY, SqliteStore } from "../../store/sqlite-store.js";
import type { ServerRecord, Store } from "../../store/store.js";
import {
  forgetServer,
  leaveServer,
  leftoverAction,
  managedServerKey,
  type RecordedServer,
  rememberServer,
  startConfigHash,
} from "./managed-servers.js";

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});
function memoryStore(): Store {
  const store = SqliteStore.open(IN_MEMORY);
  stores.push(store);
  return store;
}

/** A running server as the bridge holds it: with its password, which is not to be recorded. */
const RUNNING = {
  url: "http://127.0.0.1:4096",
  username: "opencode",
  password: "secret",
  pid: 4242,
  root: "/tmp/ocb-root",
  keeperSocket: "/tmp/ocb-keeper.sock",
};
const SERVER: RecordedServer = RUNNING;

function record(overrides: Partial<ServerRecord> = {}): ServerRecord {
  return {
    url: SERVER.url,
    username: SERVER.username,
    pid: 4242,
    ownerPid: 1234,
    configHash: "same",
    ...overrides,
  };
}

describe("managedServerKey", () => {
  it("is one per backend kind and resolved directory", () => {
    expect(managedServerKey("serve", "project")).toBe(`managed:serve:${resolve("project")}`);
    expect(managedServerKey("serve", "./project/")).toBe(managedServerKey("serve", "project"));
    expect(managedServerKey("serve-legacy", "project")).not.toBe(
      managedServerKey("serve", "project"),
    );
  });
});

describe("startConfigHash", () => {
  it("is the same for the same start and differs with the config, env or binary", () => {
    const start = { config: { model: "a/b" }, env: { A: "1" }, binary: "/bin/opencode" };
    expect(startConfigHash({ ...start })).toBe(startConfigHash(start));
    expect(startConfigHash({ ...start, config: { model: "a/c" } })).not.toBe(
      startConfigHash(start),
    );
    expect(startConfigHash({ ...start, env: { A: "2" } })).not.toBe(startConfigHash(start));
    expect(startConfigHash({ ...start, binary: "opencode" })).not.toBe(startConfigHash(start));
    expect(startConfigHash({})).toBe(startConfigHash({ config: {}, env: {}, binary: "" }));
  });

  it("differs with the sandbox, and is the one of a start without when the sandbox is off", () => {
    const start = { config: { model: "a/b" } };
    const writing = startConfigHash({ ...start, sandbox: "workspace-write" });
    expect(writing).not.toBe(startConfigHash(start));
    expect(startConfigHash({ ...start, sandbox: "read-only" })).not.toBe(writing);
    expect(
      startConfigHash({ ...start, sandbox: { mode: "workspace-write", network: "off" } }),
    ).not.toBe(writing);
    expect(startConfigHash({ ...start, sandbox: "off" })).toBe(startConfigHash(start));
  });
});

describe("leftoverAction", () => {
  const dead = () => false;
  const alive = () => true;

  it("does nothing without a record, or while the bridge that runs the server lives", () => {
    expect(leftoverAction(undefined, "same", dead)).toBe("none");
    expect(leftoverAction(record(), "same", alive)).toBe("none");
    expect(leftoverAction(record({ configHash: "other" }), "same", alive)).toBe("none");
  });

  it("takes up a dead bridge's server started the same way, and stops one started otherwise", () => {
    expect(leftoverAction(record(), "same", dead)).toBe("take-up");
    expect(leftoverAction(record({ configHash: "other" }), "same", dead)).toBe("stop");
  });

  it("takes up a server its bridge left on purpose (owner 0), even from the same process", () => {
    expect(leftoverAction(record({ ownerPid: 0 }), "same", alive)).toBe("take-up");
    expect(leftoverAction(record({ ownerPid: 0, configHash: "other" }), "same", alive)).toBe(
      "stop",
    );
  });

  it("asks about the owner, not the server", () => {
    const asked: number[] = [];
    leftoverAction(record({ ownerPid: 77, pid: 88 }), "same", (pid) => {
      asked.push(pid);
      return false;
    });
    expect(asked).toEqual([77]);
  });
});

describe("rememberServer and forgetServer", async () => {
  it("records the server as run by this process, for a successor to take up, without its password", async () => {
    const store = memoryStore();
    await rememberServer(store, "key", RUNNING, "hash", recordingLogger());
    // The password is its keeper's to tell: a store left by a killed bridge holds no secret.
    expect(await store.server("key")).toEqual({
      url: SERVER.url,
      username: SERVER.username,
      pid: 4242,
      root: "/tmp/ocb-root",
      ownerPid: process.pid,
      configHash: "hash",
      keeper: "/tmp/ocb-keeper.sock",
    });
  });

  it("records nothing for a server without a pid (nothing a successor could stop or keep)", async () => {
    const store = memoryStore();
    await rememberServer(store, "key", { ...SERVER, pid: undefined }, "hash", recordingLogger());
    expect(await store.server("key")).toBeUndefined();
  });

  it("forgets the record only while it is still this server's", async () => {
    const store = memoryStore();
    const logger = recordingLogger();
    await rememberServer(store, "key", SERVER, "hash", logger);
    await forgetServer(store, "key", 9999, logger); // another bridge's server by now
    expect((await store.server("key"))?.pid).toBe(4242);
    await forgetServer(store, "key", 4242, logger);
    expect(await store.server("key")).toBeUndefined();
  });

  it("leaveServer marks the record left (owner 0) only while it is still this server's", async () => {
    const store = memoryStore();
    const logger = recordingLogger();
    await rememberServer(store, "key", SERVER, "hash", logger);
    await leaveServer(store, "key", 9999, logger);
    expect((await store.server("key"))?.ownerPid).toBe(process.pid);
    await leaveServer(store, "key", 4242, logger);
    expect(await store.server("key")).toMatchObject({ pid: 4242, ownerPid: 0, configHash: "hash" });
  });

  it("only warns when the store fails: the server runs on", async () => {
    const store = memoryStore();
    await store.close(); // every use of a closed store throws
    const logger = recordingLogger();
    await expect(rememberServer(store, "key", SERVER, "hash", logger)).resolves.toBeUndefined();
    await expect(forgetServer(store, "key", 4242, logger)).resolves.toBeUndefined();
    expect(logger.entries.map((entry) => [entry.level, entry.message])).toEqual([
      ["warn", "could not record the server in the store"],
      ["warn", "could not forget the server in the store"],
    ]);
  });
});
