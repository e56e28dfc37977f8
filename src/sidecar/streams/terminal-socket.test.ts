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
  TERMINAL_SCROLLBACK_BYTES,
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
    this.emit("close", code);
  }
}

/** The connection dropped with no close frame: ws reports 1006. */
function drop(socket: StandInSocket): void {
  socket.readyState = 3;
  socket.emit("close", 1006);
}

class StandInTerminal implements Terminal {
  readonly id: string;
  readonly written: string[] = [];
  readonly sizes: TerminalSize[] = [];
  closes = 0;
  readonly ended: Promise<TerminalEnd>;
  #end!: (end: TerminalEnd) => void;
  #chunks: string[] = [];
  #wake: (() => void) | undefined;
  #done = false;

  constructor(id = "pty_standin") {
    this.id = id;
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

/** All the output a socket was sent, in order. */
function shown(socket: StandInSocket): string {
  return socket.sent
    .filter((message) => message.type === "output")
    .map((message) => String(message.data))
    .join("");
}

async function served(sockets = new TerminalSockets()) {
  const socket = new StandInSocket();
  const terminal = new StandInTerminal();
  const session: TerminalSession = { id: "ses_1", openTerminal: async () => terminal };
  const done = serve(socket, session, sockets);
  await vi.waitFor(() => expect(socket.sent[0]).toEqual({ type: "ready", id: terminal.id }));
  return { socket, terminal, sockets, session, done };
}

function serve(
  socket: StandInSocket,
  session: TerminalSession,
  sockets: TerminalSockets,
  reattach?: string,
): Promise<void> {
  return serveTerminal(socket as unknown as StreamSocket, session, {
    size: undefined,
    reattach,
    sockets,
    logger: silentLogger,
    stopping: new AbortController().signal,
    stoppingReason: "sidecar stopping",
  });
}

describe("the terminal socket", () => {
  it("sends output until the client's backlog passes the bound, then disconnects it (4008) and closes the terminal", async () => {
    const { socket, terminal } = await served();
    terminal.emit("first");
    await vi.waitFor(() => expect(socket.sent).toContainEqual({ type: "output", data: "first" }));
    socket.bufferedAmount = TERMINAL_BACKLOG_BYTES + 1;
    terminal.emit("second");
    await vi.waitFor(() => expect(socket.closedWith?.code).toBe(4008));
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

  it("the sidecar's stop closes the terminals kept for a socket that dropped too", async () => {
    const { socket, terminal, sockets } = await served();
    drop(socket);
    expect(terminal.closes).toBe(0);
    sockets.stopAll();
    expect(terminal.closes).toBe(1);
  });

  it("a dropped socket leaves the terminal kept: a new socket naming it takes it back with its scrollback, once", async () => {
    const { socket, terminal, sockets, session } = await served();
    terminal.emit("before");
    await vi.waitFor(() => expect(socket.sent).toContainEqual({ type: "output", data: "before" }));
    drop(socket);
    terminal.emit("missed-1");
    terminal.emit("missed-2");
    expect(terminal.closes).toBe(0);

    const again = new StandInSocket();
    void serve(again, session, sockets, terminal.id);
    // What it showed before the drop, then what it printed while away: in order, once.
    await vi.waitFor(() => expect(shown(again)).toBe("beforemissed-1missed-2"));
    expect(again.sent[0]).toEqual({ type: "ready", id: terminal.id, reattached: true });
    terminal.emit("live");
    await vi.waitFor(() => expect(shown(again)).toBe("beforemissed-1missed-2live"));
    again.emit("message", Buffer.from(JSON.stringify({ type: "input", data: "echo $V\n" })), false);
    expect(terminal.written).toEqual(["echo $V\n"]);
    // A page unload (1001) keeps it as well; the client's own close (1000) ends it.
    again.close(1001, "going away");
    expect(terminal.closes).toBe(0);
    const third = new StandInSocket();
    void serve(third, session, sockets, terminal.id);
    await vi.waitFor(() => expect(shown(third)).toBe("beforemissed-1missed-2live"));
    expect(third.sent).toHaveLength(2); // ready, then the scrollback in one message
    expect(third.sent[0]).toMatchObject({ reattached: true });
    third.close(1000, "done");
    expect(terminal.closes).toBe(1);
  });

  it("a kept terminal nobody takes back is closed after the grace period; an unknown or ended id gets a new shell", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const sockets = new TerminalSockets({ graceMs: 60_000 });
      const { socket, terminal, session } = await served(sockets);
      drop(socket);
      vi.advanceTimersByTime(59_000);
      expect(terminal.closes).toBe(0);
      vi.advanceTimersByTime(2_000);
      expect(terminal.closes).toBe(1);
      await terminal.ended;

      const fresh = new StandInTerminal("pty_fresh");
      const later = new StandInSocket();
      void serve(later, { ...session, openTerminal: async () => fresh }, sockets, terminal.id);
      await vi.waitFor(() => expect(later.sent[0]).toEqual({ type: "ready", id: fresh.id }));
      // Another session's socket cannot take a terminal by its id.
      const other = new StandInSocket();
      const otherTerminal = new StandInTerminal("pty_other");
      void serve(
        other,
        { id: "ses_2", openTerminal: async () => otherTerminal },
        sockets,
        fresh.id,
      );
      await vi.waitFor(() => expect(other.sent[0]).toEqual({ type: "ready", id: "pty_other" }));
      expect(fresh.closes).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps at most the scrollback bound, the newest, from a line start; a second socket takes over from the first (4009)", async () => {
    const { socket, terminal, sockets, session } = await served();
    const line = `${"x".repeat(TERMINAL_SCROLLBACK_BYTES / 4 - 3)}\r\n`;
    terminal.emit(`0${line}`);
    terminal.emit(`1${line}`);
    drop(socket);
    for (let i = 2; i < 6; i += 1) terminal.emit(`${i}${line}`);
    terminal.emit("last");
    await new Promise((resolve) => setTimeout(resolve, 10)); // the pump holds it all
    const first = new StandInSocket();
    void serve(first, session, sockets, terminal.id);
    await vi.waitFor(() => expect(first.sent).toHaveLength(2));
    const [replayed] = first.sent.filter((m) => m.type === "output").map((m) => String(m.data));
    expect(Buffer.byteLength(replayed ?? "")).toBeLessThanOrEqual(TERMINAL_SCROLLBACK_BYTES);
    // The oldest whole chunk kept ("2…") is dropped up to its newline: whole lines from "3".
    expect(replayed).toBe(`3${line}4${line}5${line}last`);

    const second = new StandInSocket();
    void serve(second, session, sockets, terminal.id);
    await vi.waitFor(() => expect(first.closedWith?.code).toBe(4009));
    terminal.emit("to-second");
    await vi.waitFor(() =>
      expect(second.sent).toContainEqual({ type: "output", data: "to-second" }),
    );
    expect(first.sent).not.toContainEqual({ type: "output", data: "to-second" });
    // The second socket started with the same scrollback the first got.
    expect(second.sent[1]).toEqual(first.sent[1]);
    expect(terminal.closes).toBe(0);
  });
});
