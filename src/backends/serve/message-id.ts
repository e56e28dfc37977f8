/**
 * Message ids as OpenCode mints them (`msg_` + 12 hex digits of time + 14 random base62
 * characters, ascending in time). The bridge names a prompt's message itself so that a prompt
 * whose answer was lost can be sent again with the same id: the server admits an id once and
 * answers a repeat with the first admission (verified on 1.18.33), so the repeat is safe.
 */
import { randomInt } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 14;

let lastTimestamp = 0;
let counter = 0;

/** A new message id, after every id minted before it in this process (as OpenCode's are). */
export function mintMessageId(now: number = Date.now()): string {
  if (now !== lastTimestamp) {
    lastTimestamp = now;
    counter = 0;
  }
  counter += 1;
  // OpenCode keeps the low 48 bits of time × 4096 + a per-millisecond counter.
  const value = (BigInt(now) * 0x1000n + BigInt(counter)) & 0xffff_ffff_ffffn;
  let random = "";
  for (let index = 0; index < RANDOM_LENGTH; index++) random += BASE62[randomInt(BASE62.length)];
  return `msg_${value.toString(16).padStart(12, "0")}${random}`;
}

/** Whether `id` has the shape the server accepts as a prompt's message id. */
export function isMessageId(id: string): boolean {
  return /^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/.test(id);
}
