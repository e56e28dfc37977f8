/**
 * Remote access from the command line, as a user runs it: `ocb serve --demo --relay` (a real
 * process, the built-in demo model) registers at a relay; `ocb pair` prints a one-time link; a
 * device pairs with it through the relay and gets the demo model's answer; `ocb devices` lists
 * the relay and the device; `ocb devices revoke` removes it; SIGTERM stops the sidecar with
 * exit 0. Bad options are refused before anything starts, and a sidecar without `--relay` says
 * what to do.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BridgeClient } from "../../src/client/index.js";
import { pairDevice } from "../../src/remote/device-connection.js";
import { heapSnapshotOptions, heapSnapshotText } from "../support/heap-snapshot.js";
import { listeningTcpPorts, sidecarApiPorts } from "../support/listening-ports.js";
import { killLeftOcb, ocb, type RunningOcb, startOcb, untilOcb } from "../support/ocb-cli.js";
import { ocbInProcess } from "../support/ocb-in-process.js";
import { within } from "../support/within.js";
import { NodeBinarySocket } from "../support/ws.js";

const WAIT_MS = 60_000;
// Built from hex, so that this file's source is no copy of it for a search to find.
const PHRASE = Buffer.from("6c616e7465726e2d717569636b2d3933", "hex").toString();
const clis: RunningOcb[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const cli of clis.splice(0)) {
    killLeftOcb(cli);
  }
});
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocb-cli-remote-"));
  dirs.push(dir);
  return dir;
}

describe("ocb serve --relay, ocb pair, ocb devices", () => {
  it("pairs a device through the relay, lists it, revokes it; the relay holds none of the session; SIGTERM stops with exit 0", async () => {
    const dir = tempDir();
    const diagnostics = tempDir();
    const relayCli = startOcb(["relay"], {
      env: { NODE_OPTIONS: heapSnapshotOptions(diagnostics) },
    });
    clis.push(relayCli);
    const listening = () => /listening on (ws:\/\/\S+)/.exec(relayCli.stdout)?.[1];
    await untilOcb("the relay's URL", relayCli, () => listening() !== undefined, WAIT_MS);
    const relay = { url: listening() ?? "" };
    const identity = join(dir, "keys", "relay-identity.json");
    // On a Unix socket: no port of the sidecar's. Its own data directory, so that the commands
    // below find this serve's connection file (its socket and token), no other test's.
    // `--socket` with no path: sidecar.sock beside the connection file.
    const env = { XDG_DATA_HOME: join(dir, "data"), OCB_URL: "", OCB_TOKEN: "" };
    const socket = join(env.XDG_DATA_HOME, "opencode-bridge", "serve", "sidecar.sock");
    const cli = startOcb(
      [
        "serve",
        "--demo",
        "--dir",
        dir,
        "--store",
        join(dir, "store.db"),
        "--socket",
        "--relay",
        relay.url,
        "--relay-identity",
        identity,
      ],
      { env },
    );
    clis.push(cli);
    await untilOcb("the relays line", cli, () => /^relays: /m.test(cli.stdout), WAIT_MS);
    expect(cli.stdout).toContain(`listening on the socket ${socket} `);
    expect(cli.stdout).toContain(`relays: ${relay.url}`);
    expect(statSync(identity).mode & 0o777).toBe(0o600);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    // The process listens on no TCP port that serves the API: its only one is the demo
    // model's (OpenCode calls it), which knows nothing of sessions.
    const token = /^token: (\S+)$/m.exec(cli.stdout)?.[1] ?? "";
    expect(listeningTcpPorts(cli.pid).length).toBeGreaterThan(0); // the reading of /proc works
    expect(await sidecarApiPorts(cli.pid, token, WAIT_MS)).toEqual([]);

    // Registered at the relay within its first connect.
    await within(
      (async () => {
        for (;;) {
          const devices = await ocbInProcess(["devices"], env);
          if (devices.stdout.includes(`relay ${relay.url}: registered`)) return devices;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
      "the relay registered",
      WAIT_MS,
    );
    const none = await ocbInProcess(["devices"], env);
    expect(none.stdout).toContain("no paired device (ocb pair shows a link to pair one)");

    const pair = await ocbInProcess(["pair"], env);
    expect(pair).toMatchObject({ code: 0, stderr: "" });
    const link = /^(http\S+#ocb-pair=\S+)$/m.exec(pair.stdout)?.[1] ?? "";
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#ocb-pair=1&relay=/);
    expect(pair.stdout).toContain("The link is a key");

    const { paired, connection } = await pairDevice(link, {
      deviceName: "cli phone",
      WebSocket: NodeBinarySocket,
    });
    const device = new BridgeClient({
      url: "http://sidecar.remote",
      token: "not-the-sidecar-token-0123456789",
      fetch: connection.tunnel.fetch,
    });
    const session = await device.createSession({ title: "from the phone" });
    expect((await device.getSession(session.id)).title).toBe("from the phone");
    // The phrase goes through the session both ways: sent, and the demo model's answer.
    const sent = await device.send(session.id, { text: `[[reply ${PHRASE}]]`, delivery: "queue" });
    await within(
      (async () => {
        for (;;) {
          const events = await device.transcript(session.id);
          const end = events.find(
            (event) => event.type === "turn.ended" && event.turnId === sent.turnId,
          );
          if (end !== undefined)
            return expect(end.data).toMatchObject({ outcome: "completed", text: PHRASE });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })(),
      "the turn's end",
      WAIT_MS,
    );
    const snapshot = await heapSnapshotText(relayCli, diagnostics);
    expect(snapshot).toContain("too many connections from this address"); // the relay's strings…
    expect(snapshot).not.toContain(PHRASE); // …never the session's
    expect(relayCli.stderr).toContain("relay join");
    expect(relayCli.stderr).not.toContain(PHRASE);

    const listed = await ocbInProcess(["devices"], env);
    expect(listed.stdout).toMatch(new RegExp(`^${paired.deviceId} +\\S+ +1 +cli phone$`, "m"));
    const json = JSON.parse((await ocbInProcess(["devices", "--json"], env)).stdout);
    expect(json.devices).toEqual([
      expect.objectContaining({ id: paired.deviceId, name: "cli phone", connections: 1 }),
    ]);

    const revoked = await ocbInProcess(["devices", "revoke", paired.deviceId], env);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${paired.deviceId}\n` });
    expect((await within(connection.closed, "the cut", WAIT_MS)).code).toBe(4410);
    const again = await ocbInProcess(["devices", "revoke", paired.deviceId], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no paired device ${paired.deviceId}`);

    process.kill(cli.pid, "SIGTERM");
    expect(await within(cli.exited, "the sidecar's exit", WAIT_MS)).toBe(0);
    process.kill(relayCli.pid, "SIGTERM");
    expect(await within(relayCli.exited, "the relay's exit", WAIT_MS)).toBe(0);
  });

  it("refuses bad relay and socket options before starting anything", async () => {
    const notRelay = await ocb(["serve", "--demo", "--relay", "http://relay.example"]);
    expect(notRelay.code).toBe(2);
    expect(notRelay.stderr).toContain(
      "is not a relay's address: pass ws://host:port or wss://host",
    );
    const alone = await ocb(["serve", "--demo", "--pair-page", "https://pair.example/"]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--pair-page needs --relay");
    const socketAndPort = await ocb(["serve", "--demo", "--socket", "--port", "4097"]);
    expect(socketAndPort.code).toBe(2);
    expect(socketAndPort.stderr).toContain("--socket listens on no TCP address: drop --port");
  });
});
