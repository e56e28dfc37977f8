/**
 * The terminal socket's proxying on a stand-in socket and terminal (no OpenCode): output goes
 * out as it comes until the client's unsent backlog passes the bound, then the client is
 * disconnected (4008) and the terminal closed; input and resize reach the terminal; either
 * side's end ends the other; the sidecar's stop closes them. The real PTY is in
 * test/e2e/sidecar-terminal.test.ts.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import type { Terminal, TerminalEnd, TerminalSize } from "../../backends/terminal.js";
import { silentLogger } from "../../util/logger.js";
import {
  serveTerminal,
  TERMINAL_BACKLOG_BYTES,
  type TerminalSession,
  TerminalSockets,
} from "./terminal-socket.js";
import type { StreamSocket } from "./ws-connection.js";

class StandInSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: Array<Record<string, unknown>> = [];
  closedWith: { code: number; reason: string } | undefined;
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  ping(): void {}
  terminate(): void {}
  close(code: number, reason: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
    this.emit("close");
  }
}

class StandInTerminal implements Terminal {
  readonly id = "pty_standin";
  readonly written: string[] = [];
  readonly sizes: TerminalSize[] = [];
  closes = 0;
  readonly ended: Promise<TerminalEnd>;
  #end!: (end: TerminalEnd) => void;
  #chunks: string[] = [];
  #wake: (() => void) | undefined;
  #done = false;

  constructor() {
    this.ended = new Promise((resolve) => {
      this.#end = resolve;
    });
  }
  emit(chunk: string): void {
    this.#chunks.push(chunk);
    this.#wake?.();
  }
  finish(end: TerminalEnd): void {
    this.#done = true;
    this.#end(end);
    this.#wake?.();
  }
  async *output(): AsyncIterable<string> {
    for (;;) {
      if (this.#chunks.length > 0) {
        yield* this.#chunks.splice(0);
        continue;
      }
      if (this.#done) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
  write(data: string): void {
    this.written.push(data);
  }
  async resize(size: TerminalSize): Promise<void> {
    this.sizes.push(size);
  }
  async close(): Promise<void> {
    this.closes += 1;
    this.finish({ reason: "closed", message: "the terminal was closed" });
  }
}

async function served() {
  const socket = new StandInSocket();
  const terminal = new StandInTerminal();
  const sockets = new TerminalSockets();
  const session: TerminalSession = { id: "ses_1", openTerminal: async () => terminal };
  const stopping = new AbortController();
  const done = serveTerminal(socket as unknown as StreamSocket, session, {
    size: undefined,
    sockets,
    logger: silentLogger,
    stopping: stopping.signal,
    stoppingReason: "sidecar stopping",
  });
  await vi.waitFor(() => expect(socket.sent[0]).toEqual({ type: "ready", id: terminal.id }));
  return { socket, terminal, sockets, done };
}

describe("the terminal socket", () => {
  it("sends output until the client's backlog passes the bound, then disconnects it (4008) and closes the terminal", async () => {
    const { socket, terminal, done } = await served();
    terminal.emit("first");
    await vi.waitFor(() => expect(socket.sent).toContainEqual({ type: "output", data: "first" }));
    socket.bufferedAmount = TERMINAL_BACKLOG_BYTES + 1;
    terminal.emit("second");
    await done;
    expect(socket.closedWith?.code).toBe(4008);
    expect(socket.closedWith?.reason).toMatch(/read too slowly/);
    expect(socket.sent).not.toContainEqual({ type: "output", data: "second" });
    expect(terminal.closes).toBeGreaterThan(0);
  });

  it("hands input and resizes to the terminal, and answers a malformed message with an error", async () => {
    const { socket, terminal } = await served();
    socket.emit("message", Buffer.from(JSON.stringify({ type: "input", data: "ls\n" })), false);
    socket.emit(
      "message",
      Buffer.from(JSON.stringify({ type: "resize", cols: 90, rows: 20 })),
      false,
    );
    socket.emit("message", Buffer.from("not json"), false);
    socket.emit(
      "message",
      Buffer.from(JSON.stringify({ type: "resize", cols: 0, rows: 20 })),
      false,
    );
    await vi.waitFor(() =>
      expect(socket.sent).toContainEqual({ type: "resized", cols: 90, rows: 20 }),
    );
    expect(terminal.written).toEqual(["ls\n"]);
    expect(terminal.sizes).toEqual([{ cols: 90, rows: 20 }]);
    expect(socket.sent.filter((message) => message.type === "error")).toHaveLength(2);
  });

  it("the shell's exit closes the socket (ended, 1000); the socket's close closes the terminal", async () => {
    const exiting = await served();
    exiting.terminal.finish({ reason: "exited", message: "the shell exited" });
    await vi.waitFor(() => expect(exiting.socket.closedWith?.code).toBe(1000));
    expect(exiting.socket.sent).toContainEqual({
      type: "ended",
      reason: "exited",
      message: "the shell exited",
    });

    const leaving = await served();
    leaving.socket.close(1000, "client done");
    expect(leaving.terminal.closes).toBe(1);
  });

  it("the sidecar's stop closes every terminal socket (1012), and so their terminals", async () => {
    const { socket, terminal, sockets } = await served();
    sockets.stopAll();
    expect(socket.closedWith).toEqual({ code: 1012, reason: "sidecar stopping" });
    expect(terminal.closes).toBe(1);
  });
});
