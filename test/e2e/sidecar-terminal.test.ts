/**
 * End to end: a terminal through the sidecar, on a real `opencode serve` 1.18.33 (its
 * `/api/pty`). The typed client opens one over the sidecar's own socket, runs a command and
 * sees its output, resizes it and closes it, and OpenCode's PTY is gone; a dropped socket's
 * shell is taken back by id with its state and its scrollback (once, in order); a socket
 * without the token or from a foreign Origin is refused; closing the session ends its terminal.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { BridgeClient, TerminalConnection } from "../../src/client/index.js";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { messageWith, RawWsClient } from "../support/raw-ws.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { shellHome } from "../support/shell-home.js";

const real = useRealSidecar({ web: false, label: "sidecar terminal e2e" });
let client: BridgeClient;
/** OpenCode itself, to see its PTYs (a test's view; the sidecar never hands its port out). */
let opencode: OpencodeClient;
beforeAll(() => {
  client = real.current.client;
  const { server } = real.current.bridge;
  opencode = new OpencodeClient(new HttpTransport({ url: server.url, password: server.password }), {
    directory: real.current.directory,
  });
});

/** Reads the terminal's output until it holds `text`; the output so far. */
async function outputUntil(terminal: TerminalConnection, text: string): Promise<string> {
  let seen = "";
  const reading = (async () => {
    for await (const chunk of terminal.output()) {
      seen += chunk;
      if (seen.includes(text)) return seen;
    }
    throw new Error(
      `the terminal ended before ${JSON.stringify(text)}; it showed ${JSON.stringify(seen)}`,
    );
  })();
  const bound = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`no ${JSON.stringify(text)} in 20 s; saw ${JSON.stringify(seen)}`)),
      20_000,
    ).unref(),
  );
  return await Promise.race([reading, bound]);
}

async function ptyIds(): Promise<string[]> {
  return (await opencode.v2.pty.list()).map((pty) => pty.id);
}

function terminalUrl(sessionId: string, query = ""): string {
  const url = new URL(real.current.sidecar.url);
  url.protocol = "ws:";
  url.pathname = `/v1/sessions/${sessionId}/terminal`;
  url.search = query;
  return url.href;
}

describe("a terminal through the sidecar", () => {
  it("runs a command in the session directory, resizes, and closes: OpenCode's PTY is gone", async () => {
    const session = await client.createSession();
    expect(session.capabilities?.terminal).toBe(true);
    const terminal = await client.openTerminal(session.id, { cols: 80, rows: 24 });
    expect(await ptyIds()).toContain(terminal.id);
    const token = randomBytes(6).toString("hex");
    // The variable is expanded by the shell: the echoed command line alone would not match.
    terminal.write(`T=${token}; echo "hello-$T-done"; pwd; echo "home=$HOME."\n`);
    // The login shell has the home the server was given (the tests' own, with no dotfiles),
    // not the machine user's: a stale lock of pyenv's in /root's .bashrc hung every prompt.
    const shown = await outputUntil(terminal, `home=${shellHome()}.`);
    expect(shown).toContain(`hello-${token}-done`);
    expect(shown).toContain(real.current.directory);

    await terminal.resize(100, 30);
    terminal.write("stty size\n");
    await outputUntil(terminal, "30 100");

    terminal.close();
    expect(await terminal.closed).toMatchObject({ code: 1000 });
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(terminal.id);
  });

  it("a dropped socket leaves the shell kept: the client takes it back by id, with its variables", async () => {
    const session = await client.createSession();
    const raw = await RawWsClient.connect(terminalUrl(session.id), {
      headers: { authorization: `Bearer ${real.current.token}` },
    });
    const ready = raw.received[await raw.waitFor("ready", messageWith({ type: "ready" }))] as {
      id: string;
    };
    const token = randomBytes(6).toString("hex");
    raw.send({ type: "input", data: `KEPT=${token}\n` });
    await raw.waitFor("the prompt back", messageWith({ type: "output" }));
    raw.socket.terminate(); // no close frame: the sidecar sees 1006, a drop
    await raw.closed;

    const again = await client.openTerminal(session.id, { terminal: ready.id });
    expect(again).toMatchObject({ id: ready.id, reattached: true });
    again.write('echo "kept-$KEPT-done"\n');
    await outputUntil(again, `kept-${token}-done`);
    again.close();
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(ready.id);

    // Gone now: the same id gets a new shell.
    const fresh = await client.openTerminal(session.id, { terminal: ready.id });
    expect(fresh.reattached).toBe(false);
    expect(fresh.id).not.toBe(ready.id);
    fresh.close();
  });

  it("a takeback starts with the scrollback: the output before the drop, then the output while dropped, once each", async () => {
    const session = await client.createSession();
    const raw = await RawWsClient.connect(terminalUrl(session.id), {
      headers: { authorization: `Bearer ${real.current.token}` },
    });
    const ready = raw.received[await raw.waitFor("ready", messageWith({ type: "ready" }))] as {
      id: string;
    };
    // Expanded by the shell: the echoed command lines never hold the words themselves.
    raw.send({ type: "input", data: 'echo "before-$((40+2))"\n' });
    const printed = (): string =>
      raw.received
        .filter((message) => (message as { type?: string }).type === "output")
        .map((message) => (message as { data: string }).data)
        .join("");
    await expect.poll(printed, { timeout: 20_000 }).toContain("before-42");
    // Printed half a second after the drop: the sidecar holds it for the takeback.
    raw.send({ type: "input", data: 'sleep 0.5; echo "during-$((50+5))"\n' });
    await expect.poll(printed, { timeout: 20_000 }).toContain("sleep 0.5");
    raw.socket.terminate();
    await raw.closed;
    await new Promise((resolve) => setTimeout(resolve, 2_000));

    const again = await client.openTerminal(session.id, { terminal: ready.id });
    expect(again).toMatchObject({ id: ready.id, reattached: true });
    const shown = await outputUntil(again, "during-55");
    expect(shown.split("before-42")).toHaveLength(2);
    expect(shown.split("during-55")).toHaveLength(2);
    expect(shown.indexOf("before-42")).toBeLessThan(shown.indexOf("during-55"));
    again.close();
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(ready.id);
  });

  it("refuses a socket without the token, and one from a foreign Origin", async () => {
    const session = await client.createSession();
    await expect(RawWsClient.connect(terminalUrl(session.id))).rejects.toThrow(/HTTP 401/);
    await expect(
      RawWsClient.connect(terminalUrl(session.id), {
        headers: {
          authorization: `Bearer ${real.current.token}`,
          origin: "http://evil.example",
        },
      }),
    ).rejects.toThrow(/HTTP 403/);
    const before = await ptyIds();
    // With the token and no foreign Origin it opens: the refusals were the checks'.
    const allowed = await RawWsClient.connect(terminalUrl(session.id), {
      headers: { authorization: `Bearer ${real.current.token}` },
    });
    await allowed.waitFor("ready", (message) => (message as { type?: string }).type === "ready");
    allowed.close();
    await allowed.closed;
    await expect.poll(ptyIds, { timeout: 10_000 }).toEqual(before);
  });

  it("closing the session (a release or a kill) ends its terminal and OpenCode's PTY", async () => {
    const released = await client.createSession();
    const killed = await client.createSession();
    const first = await client.openTerminal(released.id);
    const second = await client.openTerminal(killed.id);
    expect(await ptyIds()).toEqual(expect.arrayContaining([first.id, second.id]));

    await client.releaseSession(released.id);
    await client.killSession(killed.id);

    expect(await first.closed).toMatchObject({ reason: "closed", code: 1000 });
    expect(await second.closed).toMatchObject({ reason: "closed", code: 1000 });
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(first.id);
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(second.id);
  });

  it("the sidecar's stop closes its terminals (1012) and OpenCode's PTYs", async () => {
    const session = await client.createSession();
    const terminal = await client.openTerminal(session.id);

    await real.current.sidecar.close();

    expect(await terminal.closed).toMatchObject({ code: 1012 });
    await expect.poll(ptyIds, { timeout: 10_000 }).not.toContain(terminal.id);
  });
});
