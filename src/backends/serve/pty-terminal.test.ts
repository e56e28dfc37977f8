/**
 * The PTY terminal's own bounds, against a stand-in of OpenCode's PTY socket (a local `ws`
 * server) and a hand-fed transport: output nobody reads ends the terminal (`overflow`) once past
 * the bound, and the PTY is removed; OpenCode's binary cursor frame is not output; the socket's
 * close 1000 is the shell's exit. The real PTY is in test/e2e/sidecar-terminal.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HandFedTransport } from "../../../test/support/hand-fed-transport.js";
import { WebSocketServer, type WsServer, type WsSocket } from "../../../test/support/raw-ws.js";
import { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { OperationCall, SocketTarget } from "../../transport/transport.js";
import { MAX_HELD_OUTPUT_CHARS, openPtyTerminal } from "./pty-terminal.js";

const PTY = { id: "pty_unit", status: "running" };
let server: WsServer | undefined;
afterEach(() => {
  for (const socket of server?.clients ?? []) socket.terminate();
  server?.close();
  server = undefined;
});

/** A stand-in OpenCode: its PTY socket, and a transport whose socket target points there. */
async function standIn(): Promise<{ transport: HandFedTransport; connected: Promise<WsSocket> }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  server = wss;
  await new Promise<void>((resolve) => wss.on("listening", resolve));
  const address = wss.address();
  const port = typeof address === "string" ? 0 : address.port;
  const connected = new Promise<WsSocket>((resolve) => wss.on("connection", resolve));
  const transport = new (class extends HandFedTransport {
    socketTarget(_call: OperationCall): SocketTarget {
      return { url: `ws://127.0.0.1:${port}/api/pty/${PTY.id}/connect`, headers: {} };
    }
  })();
  transport.answers.set("v2.pty.create", [{ location: {}, data: PTY }]);
  return { transport, connected };
}

describe("the PTY terminal", () => {
  it("ends (overflow) once unread output passes the bound, and removes the PTY", async () => {
    const { transport, connected } = await standIn();
    const terminal = await openPtyTerminal(new OpencodeClient(transport), { directory: "/work" });
    const socket = await connected;
    const chunk = "y\n".repeat(64 * 1024);
    for (let sent = 0; sent <= MAX_HELD_OUTPUT_CHARS; sent += chunk.length) socket.send(chunk);

    expect(await terminal.ended).toMatchObject({ reason: "overflow" });
    await terminal.close();
    expect(transport.calls).toContain("v2.pty.remove");
  });

  it("gives text frames as output, not OpenCode's cursor frame; a close 1000 is the shell's exit", async () => {
    const { transport, connected } = await standIn();
    const terminal = await openPtyTerminal(new OpencodeClient(transport), { directory: "/work" });
    const socket = await connected;
    socket.send(Buffer.concat([Buffer.from([0]), Buffer.from('{"cursor":3}')]), { binary: true });
    socket.send("hi\r\n");
    socket.close(1000, "");
    let output = "";
    for await (const chunk of terminal.output()) output += chunk;
    expect(output).toBe("hi\r\n");
    expect(await terminal.ended).toMatchObject({ reason: "exited" });
  });
});
