/**
 * A relay in memory, for tests of the remote handshake and channel without a network: each
 * socket a device opens is joined to a new sidecar-side socket handed to `answer`, frames pass
 * through `tamper` (an honest relay passes each as it is; a test's may alter, drop, replay or
 * reorder them), and a close on one side closes the other with the same code, as `ocb relay`
 * does. Delivery is asynchronous and in order, as over a socket.
 */
import type { BinarySocket, BinarySocketConstructor } from "../../src/remote/binary-socket.js";

export type Direction = "to-sidecar" | "to-device";
/** What the relay forwards for the `index`th frame of a direction (0-based): none, one or several. */
export type Tamper = (direction: Direction, index: number, frame: Uint8Array) => Uint8Array[];

type Listener = (event: never) => void;

class MemorySocket implements BinarySocket {
  binaryType = "nodebuffer";
  readyState = 0;
  readonly bufferedAmount = 0;
  peer: MemorySocket | undefined;
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #forward: (frame: Uint8Array) => Uint8Array[];

  constructor(forward: (frame: Uint8Array) => Uint8Array[]) {
    this.#forward = forward;
  }

  open(): void {
    if (this.readyState !== 0) return;
    this.readyState = 1;
    this.#emit("open", undefined);
  }

  send(data: Uint8Array): void {
    if (this.readyState !== 1) return;
    for (const frame of this.#forward(Uint8Array.from(data))) {
      queueMicrotask(() => this.peer?.receive(frame));
    }
  }

  receive(frame: Uint8Array): void {
    if (this.readyState !== 1) return;
    this.#emit("message", { data: frame.slice().buffer });
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState >= 2) return;
    this.readyState = 3;
    queueMicrotask(() => this.#emit("close", { code, reason }));
    this.peer?.close(code, reason);
  }

  addEventListener(type: string, listener: Listener): void {
    const listeners = this.#listeners.get(type) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(type, listeners);
  }

  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? [])
      (listener as (event: unknown) => void)(event);
  }
}

export interface MemoryRelay {
  /** The constructor a device connects with (`DeviceConnectOptions.WebSocket`). */
  readonly WebSocket: BinarySocketConstructor;
  /** The URLs devices opened, in order. */
  readonly opened: string[];
}

export function memoryRelay(
  answer: (sidecarSocket: BinarySocket) => void,
  tamper: Tamper = (_direction, _index, frame) => [frame],
): MemoryRelay {
  const opened: string[] = [];
  class DeviceSocket extends MemorySocket {
    constructor(url: string) {
      let toSidecar = 0;
      let toDevice = 0;
      super((frame) => tamper("to-sidecar", toSidecar++, frame));
      opened.push(url);
      const sidecar = new MemorySocket((frame) => tamper("to-device", toDevice++, frame));
      this.peer = sidecar;
      sidecar.peer = this;
      // Both ends open before the sidecar's end is answered, as a relay joins them.
      queueMicrotask(() => {
        sidecar.open();
        this.open();
        answer(sidecar);
      });
    }
  }
  return { WebSocket: DeviceSocket as unknown as BinarySocketConstructor, opened };
}
