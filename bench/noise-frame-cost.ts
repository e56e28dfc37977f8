/**
 * What the relay's end-to-end encryption costs per frame, alone: one Noise transport message
 * (ChaCha20-Poly1305 on @noble, pure JavaScript) encrypted by the sidecar's end and decrypted
 * by the device's, as every tunnelled delta is. Bench (l1) prints it beside the latency, so that
 * a tail can be told from the cipher's cost.
 */
import { CipherState } from "../src/noise/cipher-state.js";
import { median, percentile } from "./stats.js";

export interface FrameCost {
  frameBytes: number;
  /** µs for one encrypt + decrypt, over `frames` frames. */
  p50Us: number;
  p99Us: number;
}

const EMPTY = new Uint8Array(0);

export function noiseFrameCost(frameBytes: number, frames: number): FrameCost {
  const key = new Uint8Array(32).fill(7);
  const sender = new CipherState(key);
  const receiver = new CipherState(key);
  const frame = new Uint8Array(frameBytes).fill(97);
  const us: number[] = [];
  // The first frames pay for the JIT; the rest are the steady cost.
  for (let index = 0; index < frames + 200; index++) {
    const started = performance.now();
    receiver.decryptWithAd(EMPTY, sender.encryptWithAd(EMPTY, frame));
    if (index >= 200) us.push((performance.now() - started) * 1000);
  }
  return { frameBytes, p50Us: median(us), p99Us: percentile(us, 99) };
}
