/**
 * `ocb relay` as a user runs it: it prints where it listens, carries a client's frames to a
 * sidecar and back, logs one line per event and never a frame's content (neither in its log
 * nor as a string in its heap), stops on SIGTERM with exit 0, and says so when its port is
 * taken; with `--web` it serves the built chat, and says so when there is none.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectToRelay } from "../../src/relay/relay-connector.js";
import { generateRelayIdentity } from "../../src/relay/relay-identity.js";
import { heapSnapshotOptions, heapSnapshotText } from "../support/heap-snapshot.js";
import { killLeftOcb, ocb, type RunningOcb, startOcb, untilOcb } from "../support/ocb-cli.js";
import { joinedPeers, registeredSidecar } from "../support/relay-peers.js";
import { selfSignedCertificate } from "../support/self-signed.js";
import { within } from "../support/within.js";

const clis: RunningOcb[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const cli of clis.splice(0)) {
    killLeftOcb(cli);
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocb-relay-e2e-"));
  dirs.push(dir);
  return dir;
}

async function startedRelay(args: string[], env: Record<string, string> = {}) {
  const cli = startOcb(["relay", ...args], { env });
  clis.push(cli);
  const url = () => /listening on (wss?:\/\/\S+)/.exec(cli.stdout)?.[1];
  await untilOcb("the relay's URL", cli, () => url() !== undefined, 30_000);
  return { cli, url: url() ?? "" };
}

describe("ocb relay", () => {
  it("carries frames, logs no content, and stops on SIGTERM with exit 0", async () => {
    const diagnostics = tempDir();
    const { cli, url } = await startedRelay([], {
      NODE_OPTIONS: heapSnapshotOptions(diagnostics),
    });
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const sidecar = await registeredSidecar(url);
    const { client, data } = await joinedPeers(url, sidecar);
    // Built from hex, so that this process holds it only as bytes until the frame arrives.
    const phrase = Buffer.from("7461702d74616e676f2d3432", "hex"); // "tap-tango-42"
    client.socket.send(phrase);
    expect((await data.next()).equals(phrase)).toBe(true);
    data.socket.send(phrase);
    expect((await client.next()).equals(phrase)).toBe(true);
    client.socket.close(1000);
    await within(data.closed, "the data socket's close");
    await untilOcb("the close line", cli, () => cli.stderr.includes("relay close"), 10_000);

    // A heap snapshot (taken after a full collection) holds every string of the relay: none
    // may be the phrase. Buffers' bytes are not in it: this catches a frame decoded to text.
    const snapshot = await heapSnapshotText(cli, diagnostics);
    // The snapshot holds the relay's strings (its sources among them)…
    expect(snapshot).toContain("too many connections from this address");
    expect(snapshot).not.toContain("tap-tango-42"); // …but never the phrase
    expect(cli.stderr).not.toContain("tap-tango-42");
    expect(cli.stderr).toMatch(/relay join sidecar=\S+ conn=\S+ ip=127\.0\.0\.0\/24/);

    await sidecar.connector.close();
    process.kill(cli.pid, "SIGTERM");
    expect(await within(cli.exited, "the exit", 30_000)).toBe(0);
    expect(cli.stdout).toContain("SIGTERM: shutting down");
  });

  it("serves wss with --tls-cert and --tls-key, and closes its sockets on SIGTERM", async () => {
    const dir = tempDir();
    const { cert, key } = selfSignedCertificate();
    writeFileSync(join(dir, "cert.pem"), cert);
    writeFileSync(join(dir, "key.pem"), key);
    const { cli, url } = await startedRelay([
      "--tls-cert",
      join(dir, "cert.pem"),
      "--tls-key",
      join(dir, "key.pem"),
    ]);
    expect(url).toMatch(/^wss:\/\//);
    let registered: () => void = () => {};
    const whenRegistered = new Promise<void>((resolve) => {
      registered = resolve;
    });
    const closes: number[] = [];
    const connector = connectToRelay({
      url,
      identity: generateRelayIdentity(),
      ca: cert,
      onIncoming: () => {},
      onState: (state) => {
        if (state.kind === "registered") registered();
        if (state.kind === "disconnected") closes.push(state.code);
      },
    });
    await within(whenRegistered, "the registration over wss");
    process.kill(cli.pid, "SIGTERM");
    expect(await within(cli.exited, "the exit", 30_000)).toBe(0);
    await within(
      (async () => {
        while (closes.length === 0) await new Promise((r) => setTimeout(r, 20));
      })(),
      "the control socket's close",
    );
    expect(closes[0]).toBe(1001);
    await connector.close();
  });

  it("says that its port is taken, and exits 2", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const address = taken.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const run = await ocb(["relay", "--port", String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `the relay cannot listen on 127.0.0.1:${port}: another process already listens there`,
      );
    } finally {
      taken.close();
    }
  });

  it("serves the chat with --web DIR, and refuses a DIR with no built chat (exit 2)", async () => {
    const built = tempDir();
    const index = "<!doctype html><title>the chat at the relay</title>";
    writeFileSync(join(built, "index.html"), index);
    const { cli, url } = await startedRelay(["--web", built]);
    const page = url.replace(/^ws/, "http");
    expect(cli.stdout).toContain(`web chat: ${page}/`);
    const answer = await fetch(`${page}/`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe(index);
    expect(answer.headers.get("content-security-policy")).toContain("connect-src 'self' ws://");
    expect((await fetch(`${page}/v1/anything`)).status).toBe(404);
    process.kill(cli.pid, "SIGTERM");
    expect(await within(cli.exited, "the exit", 30_000)).toBe(0);

    const empty = tempDir();
    const run = await ocb(["relay", "--web", empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--web: ${empty} holds no built chat (no index.html)`);
  });
});
