/**
 * Which of two OpenCode events came first, from their ids alone. OpenCode's ids are
 * "ascending": after the prefix (`evt_`) come 12 hex digits, the low 48 bits of (milliseconds
 * since the epoch × 4096 + a counter within the millisecond), all from the server's one clock;
 * then random characters. So two events of one server (its durable and live streams alike) are
 * ordered by those digits; checked on 1.18.33, where they are also the event's time, and
 * where a live connection passes events on in that order (903 events of a turn, durable and
 * deltas interleaved).
 *
 * The 48 bits wrap every 2^36 ms (about 795 days): the digits are compared modulo 2^48, as the
 * nearer way round, which holds for any two ids less than about a year apart.
 */

const DIGITS = /^[a-z]+_([0-9a-f]{12})/;
const WRAP = 2 ** 48;

/**
 * Whether the event of id `a` was made before that of id `b`: `undefined` when either id is
 * not of the ascending shape (another server, another version), so that nothing is concluded.
 */
export function nativeIdBefore(a: string, b: string): boolean | undefined {
  const first = DIGITS.exec(a)?.[1];
  const second = DIGITS.exec(b)?.[1];
  if (first === undefined || second === undefined) return undefined;
  const ahead = (Number.parseInt(second, 16) - Number.parseInt(first, 16) + WRAP) % WRAP;
  return ahead !== 0 && ahead < WRAP / 2;
}
