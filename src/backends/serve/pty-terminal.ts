/**
 * A `Terminal` on OpenCode's `/api/pty`: the PTY is created in the session directory, its
 * WebSocket (`/api/pty/{id}/connect`, with the server's own credentials) carries the output
 * and the input, and `close()` removes the PTY, which ends its shell. OpenCode's port never
 * leaves this process: the sidecar proxies the terminal over its own socket.
 */
import { ConnectionError, UsageError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { throwIfAborted } from "../../util/abort.js";
import { AsyncQueue } from "../../util/async-queue.js";
import { describeError } from "../../util/describe-error.js";
import { WS_OPEN, type WsClient, WsClientSocket } from "../../util/ws-client.js";
import { isTerminalSize, type Terminal, type TerminalEnd, type TerminalSize } from "../terminal.js";

/** Output held for a reader that does not keep up, at most; past it the terminal ends. */
export const MAX_HELD_OUTPUT_CHARS = 1024 * 1024;
/** Bound on the WebSocket handshake with OpenCode. */
const HANDSHAKE_MS = 10_000;
/** Bound on removing the PTY when closing (a server that does not answer). */
const REMOVE_MS = 5_000;

export interface OpenPtyOptions {
  directory: string;
  size?: TerminalSize;
  signal?: AbortSignal;
}

/** Creates a PTY in `directory` and connects to it; the PTY is removed again if that fails. */
export async function openPtyTerminal(
  client: OpencodeClient,
  options: OpenPtyOptions,
): Promise<Terminal> {
  const { directory, size, signal } = options;
  if (size !== undefined && !isTerminalSize(size)) {
    throw new UsageError(
      `a terminal size is whole numbers of cells from 1 to 1000, got ${JSON.stringify(size)}`,
    );
  }
  throwIfAborted(signal, "opening a terminal");
  const call = { directory, ...(signal === undefined ? {} : { signal }) };
  const pty = await client.v2.pty.create({ cwd: directory }, call);
  try {
    if (size !== undefined) await client.v2.pty.update({ ptyID: pty.id, size }, call);
    const target = client.v2.pty.connectTarget({ ptyID: pty.id }, { directory });
    if (target === undefined) {
      throw new UsageError("this transport reaches no live server: it cannot open a terminal");
    }
    const socket = await connect(target.url, target.headers, signal);
    return new PtyTerminal(client, pty.id, directory, socket);
  } catch (error) {
    await client.v2.pty.remove({ ptyID: pty.id }, { directory, timeoutMs: REMOVE_MS }).catch(
      () => undefined, // the error that matters is the one thrown
    );
    throw error;
  }
}

function connect(url: string, headers: Record<string, string>, signal?: AbortSignal) {
  return new Promise<WsClient>((resolve, reject) => {
    const socket = new WsClientSocket(url, { headers, handshakeTimeout: HANDSHAKE_MS });
    const onAbort = () => {
      socket.terminate();
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => signal?.removeEventListener("abort", onAbort);
    socket.on("open", () => {
      settle();
      resolve(socket);
    });
    socket.on("unexpected-response", (request, response) => {
      settle();
      request.destroy();
      reject(
        new ConnectionError(
          url.replace(/\?.*$/, ""),
          `OpenCode refused the terminal's socket (HTTP ${response.statusCode ?? "?"})`,
        ),
      );
    });
    socket.on("error", (error) => {
      settle();
      reject(new ConnectionError(url.replace(/\?.*$/, ""), describeError(error), { cause: error }));
    });
  });
}

class PtyTerminal implements Terminal {
  readonly id: string;
  readonly ended: Promise<TerminalEnd>;
  readonly #client: OpencodeClient;
  readonly #directory: string;
  readonly #socket: WsClient;
  readonly #output = new AsyncQueue<string>();
  /** Output pushed and not yet taken by the reader. */
  #held = 0;
  #end: TerminalEnd | undefined;
  #resolveEnded!: (end: TerminalEnd) => void;
  #removed: Promise<void> | undefined;

  constructor(client: OpencodeClient, id: string, directory: string, socket: WsClient) {
    this.#client = client;
    this.id = id;
    this.#directory = directory;
    this.#socket = socket;
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    socket.on("message", (data, isBinary) => {
      // Binary frames are OpenCode's own (a 0 byte, then `{ cursor }`): not output.
      if (isBinary) return;
      const text = data.toString("utf8");
      this.#held += text.length;
      if (this.#held > MAX_HELD_OUTPUT_CHARS) {
        this.#finish({
          reason: "overflow",
          message: `the terminal's output backed up past ${MAX_HELD_OUTPUT_CHARS} characters unread`,
        });
        return;
      }
      this.#output.push(text);
    });
    socket.on("close", (code, reason) => {
      this.#finish(
        code === 1000
          ? { reason: "exited", message: "the shell exited" }
          : { reason: "failed", message: `OpenCode closed the terminal (${code} ${reason})` },
      );
    });
    socket.on("error", (error) =>
      this.#finish({ reason: "failed", message: describeError(error) }),
    );
  }

  async *output(signal?: AbortSignal): AsyncIterable<string> {
    const reading = signal ?? new AbortController().signal;
    try {
      for await (const chunk of this.#output.read(reading, `terminal ${this.id}'s output`)) {
        this.#held -= chunk.length;
        yield chunk;
      }
    } catch (error) {
      if (this.#end === undefined || signal?.aborted) throw error;
      // The end is told by `ended`; the output just stops.
    }
  }

  write(data: string): void {
    if (this.#end === undefined && this.#socket.readyState === WS_OPEN) this.#socket.send(data);
  }

  async resize(size: TerminalSize, options: { signal?: AbortSignal } = {}): Promise<void> {
    if (!isTerminalSize(size)) {
      throw new UsageError(
        `a terminal size is whole numbers of cells from 1 to 1000, got ${JSON.stringify(size)}`,
      );
    }
    if (this.#end !== undefined) throw new UsageError(`terminal ${this.id} has ended`);
    await this.#client.v2.pty.update(
      { ptyID: this.id, size },
      { directory: this.#directory, ...(options.signal ? { signal: options.signal } : {}) },
    );
  }

  async close(): Promise<void> {
    this.#finish({ reason: "closed", message: "the terminal was closed" });
    await this.#removed;
  }

  /** Ends it once: the reader's output stops, the socket closes, the PTY is removed. */
  #finish(end: TerminalEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#output.fail(new Error(end.message));
    this.#socket.close(1000, end.reason);
    // Exited or not, the PTY stays listed upstream until removed.
    this.#removed = this.#client.v2.pty
      .remove({ ptyID: this.id }, { directory: this.#directory, timeoutMs: REMOVE_MS })
      .then(
        () => undefined,
        () => undefined, // gone already, or the server with it
      );
    this.#resolveEnded(end);
  }
}
