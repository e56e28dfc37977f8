/**
 * A socket's binary messages, read one at a time during the handshake, then handed over, in
 * order and with none lost, to the channel that follows it. Listeners are attached once, when
 * the socket is made: a message that arrives between two reads is queued, not dropped.
 */
import { type BinarySocket, bytesOfMessage } from "./binary-socket.js";
import { RemoteAccessError } from "./remote-errors.js";
import { BROKEN_CLOSE, REFUSED_CLOSE } from "./remote-handshake.js";

/** Messages held before the channel takes over: the handshake's, and a few pipelined after. */
const MAX_QUEUED = 8;

export interface SocketClose {
  readonly code: number;
  readonly reason: string;
}

export class SocketInbox {
  readonly #queue: Uint8Array[] = [];
  #closed: SocketClose | undefined;
  #wake: (() => void) | undefined;
  #consumer: ((message: Uint8Array) => void) | undefined;
  readonly #closeListeners = new Set<(close: SocketClose) => void>();

  constructor(socket: BinarySocket) {
    socket.binaryType = "arraybuffer";
    socket.addEventListener("message", (event) => {
      const bytes = bytesOfMessage(event.data);
      if (bytes === undefined) {
        socket.close(4400, "a text frame on a binary channel");
        return;
      }
      if (this.#consumer !== undefined) this.#consumer(bytes);
      else if (this.#queue.length >= MAX_QUEUED) {
        // A handshake needs two messages at most: a peer that sends on is not doing one, and
        // would make this end hold whatever it sends.
        this.#queue.length = 0;
        socket.close(BROKEN_CLOSE, "too many frames during the handshake");
      } else {
        this.#queue.push(bytes);
        this.#notify();
      }
    });
    // The close that follows an error is what counts; and `ws` throws an 'error' (a reset
    // during its handshake) out of the process when nothing listens for it.
    socket.addEventListener("error", () => {});
    socket.addEventListener("close", (event) => {
      this.#closed ??= { code: event.code, reason: event.reason };
      this.#notify();
      for (const listener of this.#closeListeners) listener(this.#closed);
    });
  }

  get closed(): SocketClose | undefined {
    return this.#closed;
  }

  /** The next message; rejects when the socket closes first or `signal` aborts. */
  async next(signal: AbortSignal, what: string): Promise<Uint8Array> {
    for (;;) {
      const message = this.#queue.shift();
      if (message !== undefined) return message;
      if (this.#closed !== undefined) throw closedError(this.#closed, what);
      if (signal.aborted) {
        throw new RemoteAccessError("timeout", `no ${what} in time`, { cause: signal.reason });
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }

  /** From now on every message goes to `consumer`, those queued first. */
  handOver(consumer: (message: Uint8Array) => void): void {
    this.#consumer = consumer;
    for (let message = this.#queue.shift(); message !== undefined; message = this.#queue.shift()) {
      consumer(message);
    }
  }

  onClose(listener: (close: SocketClose) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

function closedError(close: SocketClose, what: string): RemoteAccessError {
  const why = close.reason === "" ? `code ${close.code}` : `${close.reason} (${close.code})`;
  const failure = close.code === REFUSED_CLOSE ? "refused" : "unreachable";
  return new RemoteAccessError(failure, `the connection closed before the ${what}: ${why}`);
}
