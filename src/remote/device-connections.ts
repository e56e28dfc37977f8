/**
 * The open connections of the sidecar's paired devices: counted per device (the status shows
 * them), cut per device (a revoke) or all (a stop), and bounded: a device — or a relay that
 * replays a device's first handshake message, which IK cannot tell from a fresh one — gets at
 * most `maxPerDevice` at once (the oldest goes), and a connection that never carries a frame
 * from its device is closed after a while (a replayer can never produce one).
 */
import { BROKEN_CLOSE } from "./remote-handshake.js";

export interface DeviceChannel {
  close(code: number, reason: string): void;
  onClose(listener: () => void): () => void;
  onMessage(listener: (message: Uint8Array) => void): () => void;
}

/** Closed when a device holds more than its share. */
export const TOO_MANY_CLOSE = 4429;
export const DEFAULT_MAX_PER_DEVICE = 8;
/** Long enough for any device that connected to make its first call. */
export const DEFAULT_FIRST_FRAME_MS = 30_000;

export class DeviceConnections {
  readonly #open = new Map<string, Set<DeviceChannel>>();
  readonly #maxPerDevice: number;
  readonly #firstFrameMs: number;

  constructor(options: { maxPerDevice?: number; firstFrameMs?: number } = {}) {
    this.#maxPerDevice = options.maxPerDevice ?? DEFAULT_MAX_PER_DEVICE;
    this.#firstFrameMs = options.firstFrameMs ?? DEFAULT_FIRST_FRAME_MS;
  }

  /**
   * Counts `channel` as the device's until it closes. Call before anything reads from it (a
   * frame that breaks it at once must find it counted), and `watchFirstFrame` after.
   */
  add(deviceId: string, channel: DeviceChannel): void {
    const connections = this.#open.get(deviceId) ?? new Set<DeviceChannel>();
    this.#open.set(deviceId, connections);
    for (const oldest of connections) {
      if (connections.size < this.#maxPerDevice) break;
      connections.delete(oldest);
      oldest.close(TOO_MANY_CLOSE, "too many connections of this device");
    }
    connections.add(channel);
    channel.onClose(() => {
      connections.delete(channel);
      if (connections.size === 0 && this.#open.get(deviceId) === connections) {
        this.#open.delete(deviceId);
      }
    });
  }

  /** Closes `channel` unless its device sends a frame within the bound. */
  watchFirstFrame(channel: DeviceChannel): void {
    const timer = setTimeout(
      () => channel.close(BROKEN_CLOSE, "no frame from the device"),
      this.#firstFrameMs,
    );
    timer.unref?.();
    const heard = channel.onMessage(() => {
      clearTimeout(timer);
      heard();
    });
    channel.onClose(() => clearTimeout(timer));
  }

  count(deviceId: string): number {
    return this.#open.get(deviceId)?.size ?? 0;
  }

  closeDevice(deviceId: string, code: number, reason: string): void {
    for (const channel of [...(this.#open.get(deviceId) ?? [])]) channel.close(code, reason);
  }

  closeAll(code: number, reason: string): void {
    for (const deviceId of [...this.#open.keys()]) this.closeDevice(deviceId, code, reason);
  }
}
