/**
 * The sidecar's count of its devices' connections: bounded per device (the oldest goes), cut
 * per device and all at once, and a connection that never carries a frame closed after the
 * bound (what a relay replaying a device's first handshake message gets).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type DeviceChannel, DeviceConnections, TOO_MANY_CLOSE } from "./device-connections.js";
import { BROKEN_CLOSE } from "./remote-handshake.js";

function channel() {
  const closes: { code: number; reason: string }[] = [];
  const onClose = new Set<() => void>();
  const onMessage = new Set<(message: Uint8Array) => void>();
  const fake: DeviceChannel & { closes: typeof closes; receive(): void } = {
    closes,
    close(code, reason) {
      if (closes.length > 0) return;
      closes.push({ code, reason });
      for (const listener of onClose) listener();
    },
    onClose(listener) {
      onClose.add(listener);
      return () => onClose.delete(listener);
    },
    onMessage(listener) {
      onMessage.add(listener);
      return () => onMessage.delete(listener);
    },
    receive() {
      for (const listener of [...onMessage]) listener(new Uint8Array(1));
    },
  };
  return fake;
}

afterEach(() => vi.useRealTimers());

describe("the devices' connections", () => {
  it("are counted, bounded per device (the oldest goes), and cut per device or all", () => {
    const connections = new DeviceConnections({ maxPerDevice: 3 });
    const phone = [channel(), channel(), channel(), channel()];
    for (const one of phone) connections.add("phone", one);
    expect(phone[0]?.closes).toEqual([
      { code: TOO_MANY_CLOSE, reason: "too many connections of this device" },
    ]);
    expect(connections.count("phone")).toBe(3);
    const laptop = channel();
    connections.add("laptop", laptop);
    phone[1]?.close(1000, "done");
    expect(connections.count("phone")).toBe(2);
    connections.closeDevice("phone", 4410, "this device was revoked");
    expect(phone.slice(2).map((one) => one.closes[0]?.code)).toEqual([4410, 4410]);
    expect(connections.count("phone")).toBe(0);
    expect(laptop.closes).toEqual([]);
    connections.closeAll(1001, "the sidecar stops");
    expect(laptop.closes).toEqual([{ code: 1001, reason: "the sidecar stops" }]);
    expect(connections.count("laptop")).toBe(0);
  });

  it("close a connection that carries no frame from its device within the bound, and only that one", () => {
    vi.useFakeTimers();
    const connections = new DeviceConnections({ firstFrameMs: 30_000 });
    const replayed = channel();
    const real = channel();
    for (const one of [replayed, real]) {
      connections.add("phone", one);
      connections.watchFirstFrame(one);
    }
    vi.advanceTimersByTime(29_000);
    real.receive();
    vi.advanceTimersByTime(2_000);
    expect(replayed.closes).toEqual([{ code: BROKEN_CLOSE, reason: "no frame from the device" }]);
    expect(real.closes).toEqual([]);
    expect(connections.count("phone")).toBe(1);
  });
});
