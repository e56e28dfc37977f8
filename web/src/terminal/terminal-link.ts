/**
 * The web chat's link to a session's shell over the sidecar's terminal socket: opens it (or
 * takes back the one this tab had: its id is kept in sessionStorage, which a reload keeps),
 * feeds its output to the screen, and reconnects after a drop, taking the same shell back
 * while the sidecar keeps it (60 s), whose scrollback the sidecar sends first: the screen starts
 * over then, so it is drawn once. Leaving the panel detaches (the shell is kept); only the
 * shell's own end, or "New shell", forgets it. State is one value with named kinds.
 */
import type { BridgeClient, TerminalConnection } from "opencode-bridge/client";

export type LinkState =
  | { kind: "connecting" }
  | { kind: "open"; reattached: boolean }
  /** The socket dropped (or could not open): tried again in `retryInMs`. */
  | { kind: "lost"; message: string; retryInMs: number }
  /** The shell ended (it exited, the session closed): "New shell" starts another. */
  | { kind: "ended"; message: string }
  /** Another tab took this shell back: "Take it back" does the same. */
  | { kind: "replaced" };

export interface LinkScreen {
  output(data: string): void;
  state(state: LinkState): void;
  /** The screen's size in cells, sent with each (re)connection. */
  size(): { cols: number; rows: number };
}

const RETRY_MS = [1_000, 2_000, 4_000, 8_000];
const MAX_RETRY_MS = 10_000;
/** Ended reasons the sidecar says (src/wire/terminal.ts): the shell is gone, not the link. */
const SHELL_GONE = new Set(["exited", "closed", "overflow", "failed"]);
const REPLACED = 4009;
/**
 * ESC c (RIS, a terminal's full reset): a taken-back shell's output starts with its scrollback
 * (the sidecar's, up to 256 KiB), which the screen may already show (a reconnect in the same
 * page). Written into the output, not called on the terminal, so it takes its place in order
 * after what the screen still has to draw of the previous connection.
 */
export const START_OVER = "\x1bc";

function storageKey(sessionId: string): string {
  return `ocb.terminal.${sessionId}`;
}

export class TerminalLink {
  readonly #client: BridgeClient;
  readonly #sessionId: string;
  readonly #screen: LinkScreen;
  #connection: TerminalConnection | undefined;
  #failures = 0;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #left = false;

  constructor(client: BridgeClient, sessionId: string, screen: LinkScreen) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#screen = screen;
  }

  /** Connects, taking back this tab's shell if the sidecar still keeps it. */
  connect(): void {
    clearTimeout(this.#retry);
    this.#screen.state({ kind: "connecting" });
    void this.#open();
  }

  /** Forgets the shell this tab had and starts a new one. */
  newShell(): void {
    sessionStorage.removeItem(storageKey(this.#sessionId));
    this.connect();
  }

  write(data: string): void {
    this.#connection?.write(data);
  }

  resize(cols: number, rows: number): void {
    this.#connection?.resize(cols, rows).catch(() => undefined); // a drop says itself
  }

  /** The panel closes: the socket closes, the shell stays for the next open (or reload). */
  leave(): void {
    this.#left = true;
    clearTimeout(this.#retry);
    this.#connection?.detach();
  }

  async #open(): Promise<void> {
    const kept = sessionStorage.getItem(storageKey(this.#sessionId)) ?? undefined;
    let connection: TerminalConnection;
    try {
      connection = await this.#client.openTerminal(this.#sessionId, {
        ...this.#screen.size(),
        ...(kept === undefined ? {} : { terminal: kept }),
      });
    } catch (error) {
      if (!this.#left) this.#lost(error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.#left) {
      connection.detach();
      return;
    }
    this.#connection = connection;
    this.#failures = 0;
    sessionStorage.setItem(storageKey(this.#sessionId), connection.id);
    if (kept !== undefined && !connection.reattached) {
      this.#screen.output(
        "\r\n\x1b[2m[the previous shell had ended: this is a new one]\x1b[0m\r\n",
      );
    }
    if (connection.reattached) this.#screen.output(START_OVER);
    this.#screen.state({ kind: "open", reattached: connection.reattached });
    void this.#pump(connection);
    const closed = await connection.closed;
    if (this.#connection === connection) this.#connection = undefined;
    if (this.#left) return;
    if (closed.code === REPLACED) {
      this.#screen.state({ kind: "replaced" });
    } else if (SHELL_GONE.has(closed.reason) || closed.code === 4008) {
      sessionStorage.removeItem(storageKey(this.#sessionId));
      this.#screen.state({ kind: "ended", message: closed.message });
    } else {
      this.#lost(closed.message);
    }
  }

  async #pump(connection: TerminalConnection): Promise<void> {
    for await (const data of connection.output()) this.#screen.output(data);
  }

  #lost(message: string): void {
    const retryInMs = RETRY_MS[this.#failures] ?? MAX_RETRY_MS;
    this.#failures += 1;
    this.#screen.state({ kind: "lost", message, retryInMs });
    this.#retry = setTimeout(() => this.connect(), retryInMs);
  }
}
