/**
 * A terminal over the sidecar's terminal socket (`BridgeClient.openTerminal`): a shell in a
 * session's directory, its output read as text, input typed into it, resized and closed. The
 * terminal lives as long as the socket (`close()` ends it; a dropped socket leaves it kept a
 * while, `openTerminal({ terminal: id })`); the messages are src/wire/terminal.ts's.
 */
import {
  TERMINAL_CLOSE,
  type TerminalClientMessage,
  type TerminalServerMessage,
  TerminalServerMessageSchema,
} from "../wire/terminal.js";
import { BridgeConnectionError } from "./errors.js";
import { OPEN, type WebSocketLike } from "./socket/websocket-like.js";

/** How the terminal ended: the sidecar's `ended` (when it said one) and the socket's close. */
export interface TerminalClosed {
  /** `exited`, `closed`, `overflow`, `failed`, or `disconnected` when the socket just closed. */
  reason: string;
  message: string;
  /** The socket's close code (1000: ended; 4008: this client read too slowly; 1012: stopping). */
  code: number;
}

export class TerminalConnection {
  /** OpenCode's id of the PTY. */
  readonly id: string;
  /**
   * It is the kept terminal `openTerminal({ terminal })` named, not a new shell; its output
   * starts with the terminal's scrollback (what it showed before, up to 256 KiB), so a screen
   * that still shows the old output should be reset first.
   */
  readonly reattached: boolean;
  /** Resolves once, when the socket has closed. */
  readonly closed: Promise<TerminalClosed>;
  readonly #socket: WebSocketLike;
  readonly #chunks: string[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #resizes: Array<() => void> = [];

  /** @internal Made by `openTerminalSocket` once the sidecar said `ready`. */
  constructor(
    socket: WebSocketLike,
    id: string,
    closed: Promise<TerminalClosed>,
    reattached = false,
  ) {
    this.#socket = socket;
    this.id = id;
    this.reattached = reattached;
    this.closed = closed;
    void closed.then(() => {
      this.#done = true;
      this.#notify();
    });
  }

  /** Its output as it comes, for one reader; ends when the socket closes. */
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

  /** Types `data` into the shell (at most 64 KiB a call). */
  write(data: string): void {
    this.#send({ type: "input", data });
  }

  /** Sets its size in cells; resolves once the sidecar applied it. */
  async resize(cols: number, rows: number): Promise<void> {
    const applied = new Promise<void>((resolve) => this.#resizes.push(resolve));
    this.#send({ type: "resize", cols, rows });
    await Promise.race([applied, this.closed]);
  }

  /** Closes the socket, which ends the shell. */
  close(): void {
    this.#socket.close(1000, "closed by the client");
  }

  /**
   * Closes the socket but leaves the shell kept (4000): `openTerminal({ terminal: id })` takes
   * it back within the sidecar's grace period, with the output it missed.
   */
  detach(): void {
    this.#socket.close(TERMINAL_CLOSE.detach, "detached by the client");
  }

  /** @internal */
  received(message: TerminalServerMessage): void {
    if (message.type === "output") {
      this.#chunks.push(message.data);
      this.#notify();
    } else if (message.type === "resized") {
      this.#resizes.shift()?.();
    }
  }

  #send(message: TerminalClientMessage): void {
    if (this.#socket.readyState !== OPEN) {
      throw new BridgeConnectionError(`terminal ${this.id} is closed`);
    }
    this.#socket.send(JSON.stringify(message));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * Opens the socket at `url` and waits (up to `signal`) for the sidecar's `ready`; a refusal
 * (the handshake's HTTP error, or `ended` before `ready`) is a `BridgeConnectionError`.
 */
export function openTerminalSocket(
  socket: WebSocketLike,
  signal: AbortSignal,
): Promise<TerminalConnection> {
  return new Promise((resolve, reject) => {
    let connection: TerminalConnection | undefined;
    let ended: { reason: string; message: string } | undefined;
    let resolveClosed!: (closed: TerminalClosed) => void;
    const closed = new Promise<TerminalClosed>((settle) => {
      resolveClosed = settle;
    });
    const onAbort = () => {
      socket.close(1000, "gave up waiting");
      reject(
        new BridgeConnectionError("the terminal did not open in time", { cause: signal.reason }),
      );
    };
    signal.addEventListener("abort", onAbort, { once: true });
    socket.addEventListener("message", (event) => {
      const message = parseServerMessage(event.data);
      if (message === undefined) return;
      if (message.type === "ready" && connection === undefined) {
        signal.removeEventListener("abort", onAbort);
        connection = new TerminalConnection(
          socket,
          message.id,
          closed,
          message.reattached === true,
        );
        resolve(connection);
      } else if (message.type === "ended") {
        ended = { reason: message.reason, message: message.message };
      } else {
        connection?.received(message);
      }
    });
    socket.addEventListener("close", (event) => {
      signal.removeEventListener("abort", onAbort);
      resolveClosed({
        reason: ended?.reason ?? "disconnected",
        message: ended?.message ?? (event.reason || "the socket closed"),
        code: event.code,
      });
      if (connection === undefined) {
        reject(
          new BridgeConnectionError(
            `the sidecar refused the terminal (${event.code}${ended ? `: ${ended.message}` : event.reason ? `: ${event.reason}` : ""})`,
          ),
        );
      }
    });
  });
}

function parseServerMessage(data: unknown): TerminalServerMessage | undefined {
  if (typeof data !== "string") return undefined;
  try {
    const parsed = TerminalServerMessageSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
