/**
 * (y) Terminal keystroke to echo: one character typed into a shell, the time until the shell's
 * echo of it comes back, through the sidecar's terminal socket (`/v1/sessions/:id/terminal`,
 * which proxies OpenCode's PTY socket) against straight on OpenCode's PTY socket (`POST
 * /api/pty`, `/api/pty/{id}/connect` with the server's Basic auth); the keystrokes alternate
 * between the two; p50 and p99 of each, and the p99 the sidecar adds (goal ≤ 5 ms).
 */
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { CALL_BOUND_MS, type ControlRig, startControlRig } from "./control-rig.js";
import { recordGoal } from "./goals.js";
import { formatMs, note, percentile, withTimeout } from "./stats.js";

/** The few members of `ws`'s client socket used here (`ws` ships no types of its own). */
interface WsSocket {
  on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): unknown;
  on(event: "open", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  send(data: string): void;
  close(): void;
}
const { WebSocket } = createRequire(import.meta.url)("ws") as {
  WebSocket: new (url: string, options: { headers: Record<string, string> }) => WsSocket;
};

/** Typed in each measured keystroke; the line is cleared (Ctrl-U) every `LINE` of them. */
const KEY = "x";
const LINE = 40;
const CLEAR_LINE = "\u0015";
/** Bound on one echo: a shell that does not echo fails the figure instead of holding it. */
const ECHO_BOUND_MS = 5_000;
const WARMUPS = 20;

export interface TerminalEchoResult {
  keystrokes: number;
  /** ms of each keystroke's echo, by way. */
  sidecarMs: number[];
  directMs: number[];
  /** The 1-minute load average at the end (the machine is shared). */
  load: number;
}

/** A shell's output as text, and a way to type into it. */
class EchoProbe {
  #output = "";
  #waiting: (() => void) | undefined;
  constructor(
    readonly socket: WsSocket,
    private readonly frame: (text: string) => string,
  ) {}

  /** Types `text` without waiting for anything. */
  write(text: string): void {
    this.socket.send(this.frame(text));
  }

  /** Output text arrived. */
  take(text: string): void {
    this.#output += text;
    this.#waiting?.();
  }

  /** Types `text` and waits for output holding `echo` after it. */
  async keystroke(text: string, echo: string): Promise<number> {
    this.#output = "";
    const started = performance.now();
    this.write(text);
    await withTimeout(
      new Promise<void>((resolve) => {
        const check = () => {
          if (!this.#output.includes(echo)) return;
          this.#waiting = undefined;
          resolve();
        };
        this.#waiting = check;
        check();
      }),
      ECHO_BOUND_MS,
      "a keystroke's echo",
    );
    return performance.now() - started;
  }

  /** Lets the shell's output settle (its prompt, a line redrawn), then forgets it. */
  async settle(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.#output = "";
  }
}

function open(url: string, headers: Record<string, string>): Promise<WsSocket> {
  return withTimeout(
    new Promise<WsSocket>((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.on("open", () => resolve(socket));
      socket.on("error", reject);
    }),
    CALL_BOUND_MS,
    `opening ${url.replace(/\?.*$/, "")}`,
  );
}

/** A terminal through the sidecar: its JSON messages (src/wire/terminal.ts). */
async function throughSidecar(rig: ControlRig, sessionId: string): Promise<EchoProbe> {
  const url = `${rig.sidecar.url.replace(/^http/, "ws")}/v1/sessions/${sessionId}/terminal`;
  const socket = await open(url, rig.sidecarHeaders);
  const probe = new EchoProbe(socket, (data) => JSON.stringify({ type: "input", data }));
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString("utf8")) as { type: string; data?: string };
    if (message.type === "output" && typeof message.data === "string") probe.take(message.data);
  });
  return probe;
}

/** A PTY straight on OpenCode: text frames both ways (its binary cursor frame is not output). */
async function straight(rig: ControlRig): Promise<{ probe: EchoProbe; ptyId: string }> {
  const response = await fetch(`${rig.opencodeUrl}/api/pty`, {
    method: "POST",
    headers: rig.raw.headers({ "content-type": "application/json" }),
    body: JSON.stringify({ cwd: rig.directory }),
    signal: AbortSignal.timeout(CALL_BOUND_MS),
  });
  const body = (await response.json()) as { data?: { id?: string } };
  const ptyId = body.data?.id;
  if (!response.ok || ptyId === undefined) {
    throw new Error(`POST /api/pty: ${response.status} ${JSON.stringify(body)}`);
  }
  const url = `${rig.opencodeUrl.replace(/^http/, "ws")}/api/pty/${ptyId}/connect`;
  const socket = await open(url, rig.raw.headers());
  const probe = new EchoProbe(socket, (data) => data);
  socket.on("message", (data, isBinary) => {
    if (!isBinary) probe.take(data.toString("utf8"));
  });
  return { probe, ptyId };
}

export async function benchTerminalEcho(options: {
  keystrokes: number;
}): Promise<TerminalEchoResult> {
  const rig = await startControlRig();
  let sidecar: EchoProbe | undefined;
  let direct: { probe: EchoProbe; ptyId: string } | undefined;
  try {
    const session = await rig.createSession("bench (y)");
    sidecar = await throughSidecar(rig, session.id);
    direct = await straight(rig);
    const probes = { sidecar, direct: direct.probe };
    // The login shells print their prompts first.
    await Promise.all([probes.sidecar.settle(1_000), probes.direct.settle(1_000)]);
    const times = { sidecar: [] as number[], direct: [] as number[] };
    note(`(y) ${options.keystrokes} keystrokes each way, alternating`);
    for (let key = 0; key < WARMUPS + options.keystrokes; key++) {
      // Which side goes first alternates too.
      const order =
        key % 2 === 0 ? (["sidecar", "direct"] as const) : (["direct", "sidecar"] as const);
      for (const way of order) {
        const ms = await probes[way].keystroke(KEY, KEY);
        if (key >= WARMUPS) times[way].push(ms);
      }
      if (key % LINE === LINE - 1) {
        // A long line wraps and is redrawn: cleared, outside the measured keystrokes.
        for (const way of order) probes[way].write(CLEAR_LINE);
        await Promise.all([probes.sidecar.settle(100), probes.direct.settle(100)]);
      }
    }
    return {
      keystrokes: options.keystrokes,
      sidecarMs: times.sidecar,
      directMs: times.direct,
      load: loadavg()[0] ?? Number.NaN,
    };
  } finally {
    sidecar?.socket.close();
    direct?.probe.socket.close();
    if (direct !== undefined) {
      await fetch(`${rig.opencodeUrl}/api/pty/${direct.ptyId}`, {
        method: "DELETE",
        headers: rig.raw.headers(),
        signal: AbortSignal.timeout(CALL_BOUND_MS),
      }).catch(() => undefined); // the server stops with the rig anyway
    }
    await rig.close();
  }
}

export function terminalEchoLines(result: TerminalEchoResult): string[] {
  const p99 = {
    sidecar: percentile(result.sidecarMs, 99),
    direct: percentile(result.directMs, 99),
  };
  const added = p99.sidecar - p99.direct;
  const met = recordGoal({
    figure: "(y)",
    what: "terminal keystroke to echo through the sidecar, p99 added to OpenCode's PTY socket",
    measured: formatMs(added),
    goal: "≤ 5 ms",
    met: added <= 5,
  });
  return [
    `(y) terminal keystroke to echo, ${result.keystrokes} keystrokes each way, alternating:`,
    `    through the sidecar: p50 ${formatMs(percentile(result.sidecarMs, 50))}, p99 ${formatMs(p99.sidecar)}`,
    `    straight to OpenCode's PTY socket: p50 ${formatMs(percentile(result.directMs, 50))}, p99 ${formatMs(p99.direct)}`,
    `    p99 added by the sidecar: ${added >= 0 ? "+" : ""}${formatMs(added)} (goal ≤ 5 ms: ${met}); p50 added ${formatMs(percentile(result.sidecarMs, 50) - percentile(result.directMs, 50))}; 1-minute load average ${result.load.toFixed(1)}`,
  ];
}
