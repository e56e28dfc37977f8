/**
 * `Sidecar.close()` is bounded: a client that stopped reading a large answer (an asset of the
 * chat, here) does not hold the stop forever; past `limits.closeGraceMs` its connection is cut.
 * And a sidecar that cannot listen at all says why and what to do.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { standInBridge, TOKEN } from "../../test/support/sidecar-harness.js";
import { within } from "../../test/support/within.js";
import { UsageError } from "../errors.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { startSidecar } from "./sidecar.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A directory and an in-memory store, both gone after the test. */
function scratch(name: string): { directory: string; store: SqliteStore } {
  const directory = mkdtempSync(join(tmpdir(), `ocb-sidecar-${name}-`));
  const store = SqliteStore.open(":memory:");
  cleanups.push(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { directory, store };
}

describe("closing the sidecar", () => {
  it("cuts an answer a client stopped reading once the grace has passed", async () => {
    const { directory, store } = scratch("close");
    const web = join(directory, "web");
    mkdirSync(join(web, "assets"), { recursive: true });
    writeFileSync(join(web, "index.html"), "<!doctype html>");
    // Far more than the socket buffers hold: the answer cannot finish while nobody reads.
    writeFileSync(join(web, "assets", "big-0123.js"), Buffer.alloc(32 * 1024 * 1024, 97));
    const { bridge } = standInBridge(directory, store);
    const sidecar = await startSidecar({
      bridge,
      token: TOKEN,
      store,
      webRoot: web,
      limits: { closeGraceMs: 100 },
    });
    const { port } = new URL(sidecar.url);
    const socket = connect(Number(port), "127.0.0.1");
    cleanups.push(() => socket.destroy());
    const firstBytes = new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.write(`GET /assets/big-0123.js HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await within(firstBytes, "the answer's first bytes");
    socket.pause(); // a client that stopped reading

    await within(sidecar.close(), "the close, past its grace");
    const cut = await within(
      new Promise<boolean>((resolve) => {
        if (socket.destroyed) resolve(true);
        socket.once("close", () => resolve(true));
        socket.resume(); // drain what was buffered, to see the end
      }),
      "the connection's end",
    );
    expect(cut).toBe(true);
  });
});

describe("a sidecar that cannot listen", () => {
  it("says the port is in use and what to do", async () => {
    const { directory, store } = scratch("port");
    const { bridge } = standInBridge(directory, store);
    const first = await startSidecar({ bridge, token: TOKEN, store });
    cleanups.push(() => void first.close());
    const port = Number(new URL(first.url).port);
    const second = startSidecar({ bridge, token: TOKEN, store, port });
    await expect(second).rejects.toBeInstanceOf(UsageError);
    await expect(second).rejects.toThrow(
      `the sidecar cannot listen on 127.0.0.1:${port}: another process already listens there`,
    );
  });
});
