/**
 * A bridge attached to a tiny in-process HTTP server (it answers the health probe and holds
 * every other request): `await using` closes the bridge and its sessions at the end of the
 * block, and a network call's `signal` reaches the HTTP request it makes. Also the
 * `modelServer` hook (how the demo model is wired in).
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AbortError, UsageError } from "../../errors.js";
import { HEALTH_PATH } from "../../server/health.js";
import { IN_MEMORY, SqliteStore } from "../../store/sqlite-store.js";
import { Bridge } from "./bridge.js";
import type { ModelServerFactory } from "./model-server.js";

let server: Server;
let url: string;
/** The requests other than the health probe, as they arrive; none is ever answered. */
let held: IncomingMessage[];
let arrived: (() => void) | undefined;

beforeEach(async () => {
  held = [];
  server = createServer((request, response) => {
    if (request.url === HEALTH_PATH) {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ healthy: true, version: "1.18.33" }));
      return;
    }
    held.push(request);
    arrived?.();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
});

function start(store: SqliteStore): Promise<Bridge> {
  return Bridge.start({
    directory: "/tmp",
    backend: "serve-legacy",
    attach: { url },
    model: { providerID: "demo", modelID: "demo-1" },
    store,
  });
}

/** Keeps a released session `ses_1` in `store`, as a bridge before this one left it. */
function keepReleasedSession(store: SqliteStore): Promise<void> {
  return store.saveSession({
    id: "ses_1",
    backend: "serve-legacy",
    upstreamId: "ses_1",
    directory: "/tmp",
    state: "released",
    createdAt: 1,
    updatedAt: 1,
  });
}

describe("Bridge lifetime and signals", () => {
  it("`await using` closes the bridge (and its sessions) at the end of the block", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    try {
      let seen: Bridge | undefined;
      {
        await using bridge = await start(store);
        seen = bridge;
        expect(bridge.server.url).toBe(url);
      }
      // Closed: the attached server's handle has ended.
      await expect(seen.server.exited).resolves.toMatchObject({ expected: true });
    } finally {
      store.close();
    }
  });

  it("createSession with an aborted signal rejects with AbortError and sends nothing", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    try {
      await using bridge = await start(store);
      const controller = new AbortController();
      controller.abort();
      await expect(bridge.createSession({ signal: controller.signal })).rejects.toBeInstanceOf(
        AbortError,
      );
      expect(held).toHaveLength(0);
      expect(await bridge.sessions()).toHaveLength(0);
    } finally {
      store.close();
    }
  });

  it("createSession's signal aborts the HTTP request under way", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    try {
      await using bridge = await start(store);
      const controller = new AbortController();
      const sent = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const creating = bridge.createSession({ signal: controller.signal });
      await sent;
      expect(held.map((request) => request.url?.split("?")[0])).toEqual(["/session"]);
      controller.abort();
      await expect(creating).rejects.toBeInstanceOf(AbortError);
      expect(await bridge.sessions()).toHaveLength(0);
    } finally {
      arrived = undefined;
      store.close();
    }
  });

  it("openSession and killSession with an aborted signal reject with AbortError", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    try {
      await using bridge = await start(store);
      const aborted = AbortSignal.abort();
      await expect(bridge.openSession("ses_x", { signal: aborted })).rejects.toBeInstanceOf(
        AbortError,
      );
      await keepReleasedSession(store);
      const session = await bridge.openSession("ses_1");
      await expect(bridge.killSession(session, { signal: aborted })).rejects.toBeInstanceOf(
        AbortError,
      );
      // Nothing was done: the session is still followed and not marked killed.
      expect((await store.session("ses_1"))?.state).toBe("open");
      expect(held).toHaveLength(0);
    } finally {
      store.close();
    }
  });

  it("two openSession calls of one session at once give the same session", async () => {
    const store = SqliteStore.open(IN_MEMORY);
    try {
      await using bridge = await start(store);
      await keepReleasedSession(store);
      // Both are past the "already open?" check before either has read the store: two sessions
      // would follow one upstream session, each handing out only what its own appends stored.
      const [first, second] = await Promise.all([
        bridge.openSession("ses_1"),
        bridge.openSession("ses_1"),
      ]);
      expect(second).toBe(first);
    } finally {
      store.close();
    }
  });

  it("runs a model server: its model is the default, and it is stopped with the bridge", async () => {
    const calls: string[] = [];
    const modelServer: ModelServerFactory = async () => {
      calls.push("start");
      return {
        config: {},
        defaultModel: { providerID: "local", modelID: "stub-1" },
        close: async () => {
          calls.push("close");
        },
      };
    };
    {
      // subprocess: nothing is spawned before the first turn (`/bin/true` is never run here).
      await using bridge = await Bridge.start({
        directory: "/tmp",
        backend: "subprocess",
        server: { binary: "/bin/true" },
        modelServer,
        store: IN_MEMORY,
      });
      expect(bridge.defaultModel).toEqual({ providerID: "local", modelID: "stub-1" });
      expect(calls).toEqual(["start"]);
    }
    expect(calls).toEqual(["start", "close"]);
  });

  it("refuses a model server on an attached server (its config is its own), starting none", async () => {
    let started = false;
    const modelServer: ModelServerFactory = async () => {
      started = true;
      throw new Error("not to be called");
    };
    await expect(
      Bridge.start({ directory: "/tmp", attach: { url }, modelServer, store: IN_MEMORY }),
    ).rejects.toThrow(UsageError);
    expect(started).toBe(false);
  });
});
