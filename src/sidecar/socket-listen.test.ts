/**
 * A sidecar on a Unix socket (`socketPath`) instead of a TCP port: a client reaches it through
 * `unixSocketTransport` with `Host: localhost`; the socket is the owner's alone (0600) and gone
 * after the close; a leftover socket of a killed sidecar is replaced, a live one or another
 * file is not, and a directory other users can enter, or one under a directory they can
 * rename things in, is refused (one of them could put a socket of theirs at the path and be
 * handed the token).
 */
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { standInBridge, TOKEN } from "../../test/support/sidecar-harness.js";
import { BridgeClient } from "../client/index.js";
import { UsageError } from "../errors.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { unixSocketTransport } from "../tunnel/unix-socket-transport.js";
import { type Sidecar, startSidecar } from "./sidecar.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A private directory (0700) and a stand-in bridge over an in-memory store. */
function scratch(): { directory: string; bridge: ReturnType<typeof standInBridge>["bridge"] } {
  const directory = mkdtempSync(join(tmpdir(), "ocb-socket-"));
  const store = SqliteStore.open(":memory:");
  cleanups.push(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { directory, bridge: standInBridge(directory, store).bridge };
}

async function started(options: Parameters<typeof startSidecar>[0]): Promise<Sidecar> {
  const sidecar = await startSidecar(options);
  cleanups.push(() => sidecar.close());
  return sidecar;
}

function listening(path: string): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve(server));
  });
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A raw request on the socket with the `Host` given; its status and body. */
function rawGet(socketPath: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { socketPath, path: "/v1/sessions", headers: { host, authorization: `Bearer ${TOKEN}` } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("a sidecar on a Unix socket", () => {
  it("serves a client through the socket, the owner's alone, and removes it on close", async () => {
    const { directory, bridge } = scratch();
    const socketPath = join(directory, "ocb.sock");
    const sidecar = await started({ bridge, token: TOKEN, socketPath, web: false });
    expect(sidecar.url).toBe("http://localhost");
    expect(sidecar.socketPath).toBe(socketPath);
    expect(statSync(socketPath).isSocket()).toBe(true);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);

    const transport = unixSocketTransport(socketPath);
    cleanups.push(() => transport.close());
    const client = new BridgeClient({ url: sidecar.url, token: TOKEN, fetch: transport.fetch });
    const session = await client.createSession();
    expect((await client.listSessions()).map((listed) => listed.id)).toContain(session.id);
    client.close();

    await sidecar.close();
    expect(existsSync(socketPath)).toBe(false);
  });

  it("answers only to Host: localhost, and to no browser origin", async () => {
    const { directory, bridge } = scratch();
    const socketPath = join(directory, "ocb.sock");
    await started({ bridge, token: TOKEN, socketPath, web: false });
    expect((await rawGet(socketPath, "localhost")).status).toBe(200);
    const foreign = await rawGet(socketPath, "evil.example");
    expect(foreign.status).toBe(421);
    expect(foreign.body).toContain("on its Unix socket, call it with Host: localhost");
    expect(foreign.body).not.toContain(socketPath);
    // What a page on a loopback port would send: not this sidecar's origin.
    const transport = unixSocketTransport(socketPath);
    cleanups.push(() => transport.close());
    const fromPage = await transport.fetch("http://localhost/v1/sessions", {
      headers: { authorization: `Bearer ${TOKEN}`, origin: "http://localhost:8080" },
    });
    expect(fromPage.status).toBe(403);
  });

  it("gives a client of a socket nobody listens on a network error, as fetch does", async () => {
    const { directory } = scratch();
    const socketPath = join(directory, "gone.sock");
    const transport = unixSocketTransport(socketPath);
    cleanups.push(() => transport.close());
    const failed = transport.fetch("http://localhost/v1/sessions");
    await expect(failed).rejects.toThrow(TypeError);
    await expect(failed).rejects.toThrow(`cannot reach the socket ${socketPath}`);
  });

  it("replaces a socket left by a sidecar killed outright, and refuses a live one", async () => {
    const { directory, bridge } = scratch();
    const socketPath = join(directory, "ocb.sock");
    // A second name for a listening socket stays behind, listened on by nobody, when the
    // server closes (Node removes the name it listened on): what a kill -9 leaves.
    const earlier = await listening(join(directory, "earlier.sock"));
    linkSync(join(directory, "earlier.sock"), socketPath);
    await closed(earlier);
    const sidecar = await started({ bridge, token: TOKEN, socketPath, web: false });
    expect((await rawGet(socketPath, "localhost")).status).toBe(200);
    await sidecar.close();

    const live = await listening(socketPath);
    cleanups.push(() => closed(live));
    const refused = startSidecar({ bridge, token: TOKEN, socketPath, web: false });
    await expect(refused).rejects.toThrow(UsageError);
    await expect(refused).rejects.toThrow(`another process listens on ${socketPath}`);
  });

  it("refuses a path that is another file, a directory others can enter or rename, and a TCP address", async () => {
    const { directory, bridge } = scratch();
    const file = join(directory, "notes.txt");
    writeFileSync(file, "mine");
    await expect(startSidecar({ bridge, token: TOKEN, socketPath: file })).rejects.toThrow(
      `${file} exists and is not a socket`,
    );
    const shared = join(directory, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    await expect(
      startSidecar({ bridge, token: TOKEN, socketPath: join(shared, "ocb.sock") }),
    ).rejects.toThrow(/is open to other users \(mode 1777\)/);
    // Its own directory closed, but inside one anybody may rename things in (no sticky bit).
    const open = join(directory, "open");
    mkdirSync(join(open, "mine"), { recursive: true });
    chmodSync(open, 0o777);
    chmodSync(join(open, "mine"), 0o700);
    await expect(
      startSidecar({ bridge, token: TOKEN, socketPath: join(open, "mine", "ocb.sock") }),
    ).rejects.toThrow(
      `the socket's path runs through ${open} (uid ${process.getuid?.()}, mode 777)`,
    );
    await expect(
      startSidecar({ bridge, token: TOKEN, socketPath: join(directory, "none", "ocb.sock") }),
    ).rejects.toThrow("does not exist");
    await expect(
      startSidecar({ bridge, token: TOKEN, socketPath: join(directory, "s"), port: 8080 }),
    ).rejects.toThrow("drop port");
  });
});
