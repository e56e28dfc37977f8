/**
 * TerminalLink on a stand-in client: it keeps its shell's id for the tab, takes it back after a
 * drop (retrying with a growing wait), forgets it when the shell ends, stops at a takeover by
 * another tab, and detaches (the shell kept) when the panel closes.
 */
import type { BridgeClient, TerminalClosed, TerminalConnection } from "opencode-bridge/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type LinkState, START_OVER, TerminalLink } from "./terminal-link.js";

class StandInConnection {
  readonly closed: Promise<TerminalClosed>;
  detached = false;
  close!: (closed: TerminalClosed) => void;
  constructor(
    readonly id: string,
    readonly reattached: boolean,
    readonly shown: string[] = [],
  ) {
    this.closed = new Promise((resolve) => {
      this.close = resolve;
    });
  }
  async *output(): AsyncIterable<string> {
    yield* this.shown;
  }
  write(): void {}
  async resize(): Promise<void> {}
  detach(): void {
    this.detached = true;
  }
}

let opened: Array<{ terminal: string | undefined; connection: StandInConnection }>;
let answers: Array<(terminal: string | undefined) => StandInConnection | Error>;
const client = {
  openTerminal: async (_id: string, options: { terminal?: string }) => {
    const answer = answers.shift()?.(options.terminal);
    if (answer === undefined || answer instanceof Error) throw answer ?? new Error("no answer");
    opened.push({ terminal: options.terminal, connection: answer });
    return answer as unknown as TerminalConnection;
  },
} as unknown as BridgeClient;

function link() {
  const states: LinkState[] = [];
  const output: string[] = [];
  const shell = new TerminalLink(client, "ses_1", {
    output: (data) => output.push(data),
    state: (state) => states.push(state),
    size: () => ({ cols: 80, rows: 24 }),
  });
  return { shell, states, output, last: () => states.at(-1) };
}

beforeEach(() => {
  opened = [];
  answers = [];
  const stored = new Map<string, string>();
  vi.stubGlobal("sessionStorage", {
    getItem: (key: string) => stored.get(key) ?? null,
    setItem: (key: string, value: string) => stored.set(key, value),
    removeItem: (key: string) => stored.delete(key),
  });
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("the terminal link", () => {
  it("takes its shell back after a drop, and after the tab's reload", async () => {
    const first = new StandInConnection("pty_1", false, ["$ ls\r\n"]);
    answers.push(() => first);
    const { shell, last, output } = link();
    shell.connect();
    await vi.waitFor(() => expect(last()).toEqual({ kind: "open", reattached: false }));

    first.close({ reason: "disconnected", message: "the socket closed", code: 1006 });
    await vi.waitFor(() => expect(last()).toMatchObject({ kind: "lost", retryInMs: 1000 }));
    answers.push(() => new Error("refused"));
    await vi.advanceTimersByTimeAsync(1000);
    expect(last()).toMatchObject({ kind: "lost", retryInMs: 2000, message: "refused" });
    // The sidecar sends the shell's scrollback first: the screen starts over, so not twice.
    const again = new StandInConnection("pty_1", true, ["$ ls\r\n", "$ "]);
    answers.push(() => again);
    await vi.advanceTimersByTimeAsync(2000);
    expect(last()).toEqual({ kind: "open", reattached: true });
    expect(output).toEqual(["$ ls\r\n", START_OVER, "$ ls\r\n", "$ "]);
    expect(opened.map((open) => open.terminal)).toEqual([undefined, "pty_1"]);

    // A new page of the same tab (a reload) asks for the same shell.
    shell.leave();
    expect(again.detached).toBe(true);
    const reloaded = link();
    answers.push(() => new StandInConnection("pty_1", true));
    reloaded.shell.connect();
    await vi.waitFor(() => expect(reloaded.last()).toEqual({ kind: "open", reattached: true }));
    expect(opened.at(-1)?.terminal).toBe("pty_1");
  });

  it("forgets a shell that ended, says when the kept one was gone, and stops at a takeover", async () => {
    const ending = new StandInConnection("pty_1", false);
    answers.push(() => ending);
    const { shell, last, output } = link();
    shell.connect();
    await vi.waitFor(() => expect(last()?.kind).toBe("open"));
    ending.close({ reason: "exited", message: "the shell exited", code: 1000 });
    await vi.waitFor(() => expect(last()).toEqual({ kind: "ended", message: "the shell exited" }));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(opened).toHaveLength(1); // no retry

    answers.push(
      (terminal) => new StandInConnection(terminal === undefined ? "pty_2" : "?", false),
    );
    shell.newShell();
    await vi.waitFor(() => expect(last()?.kind).toBe("open"));
    expect(opened.at(-1)?.terminal).toBeUndefined();

    // pty_2 is kept for the tab; the sidecar answers with a new shell: the screen says so.
    shell.leave();
    const after = link();
    const taken = new StandInConnection("pty_3", false);
    answers.push(() => taken);
    after.shell.connect();
    await vi.waitFor(() => expect(after.last()?.kind).toBe("open"));
    expect(opened.at(-1)?.terminal).toBe("pty_2");
    expect(after.output.join("")).toMatch(/previous shell had ended/);
    expect(output).toEqual([]);

    taken.close({ reason: "disconnected", message: "taken back", code: 4009 });
    await vi.waitFor(() => expect(after.last()).toEqual({ kind: "replaced" }));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(opened).toHaveLength(3);
  });
});
