/**
 * The scrollback ring: it keeps the newest output within its byte bound, in order, whole chunks
 * while they fit; once it dropped something its text starts on a line; a chunk larger than the
 * bound keeps its newest bytes on a character boundary.
 */
import { describe, expect, it } from "vitest";
import { ScrollbackRing } from "./scrollback-ring.js";

describe("the scrollback ring", () => {
  it("keeps everything in order while it fits, uncut", () => {
    const ring = new ScrollbackRing(100);
    ring.push("partial ");
    ring.push("line\r\n$ ");
    ring.push("");
    ring.push("ls\r\n");
    expect(ring.text()).toBe("partial line\r\n$ ls\r\n");
    expect(ring.bytes).toBe(20);
  });

  it("drops the oldest whole chunks past the bound; after a mid-line drop, starts on the next line", () => {
    const ring = new ScrollbackRing(20);
    ring.push("0123"); // a line's start, its end in the next chunk
    ring.push("456789\x1b[3"); // 10: a colour cut in half by the PTY's read
    ring.push("1mred\x1b[0m\nnext\n"); // 15: the first two chunks go
    expect(ring.bytes).toBe(15);
    // The kept text would start inside the colour ("1mred"): it starts on the next line.
    expect(ring.text()).toBe("next\n");
    ring.push("a\nb\n");
    expect(ring.bytes).toBeLessThanOrEqual(20);
    expect(ring.text()).toBe("next\na\nb\n");
  });

  it("keeps a kept chunk whole when the chunk dropped before it ended a line", () => {
    const ring = new ScrollbackRing(12);
    ring.push("one\n");
    ring.push("two\n");
    ring.push("three\n"); // 14 bytes: "one\n" goes, and it ended its line
    expect(ring.text()).toBe("two\nthree\n");
  });

  it("counts UTF-8 bytes, not characters", () => {
    const ring = new ScrollbackRing(10);
    ring.push("ééé\n"); // 7 bytes, 4 characters
    ring.push("ü\n"); // 3 bytes: 10 in all, still fits
    expect(ring.bytes).toBe(10);
    expect(ring.text()).toBe("ééé\nü\n");
    ring.push("x"); // 11 bytes: the first chunk (a whole line) goes
    expect(ring.bytes).toBe(4);
    expect(ring.text()).toBe("ü\nx");
  });

  it("keeps a chunk larger than the bound as its newest bytes, on a character and then a line", () => {
    const ring = new ScrollbackRing(8);
    // "€" is 3 bytes: the newest 8 bytes start inside one, so the kept tail starts after it.
    ring.push("€€€\nab");
    expect(ring.bytes).toBeLessThanOrEqual(8);
    expect(ring.text()).toBe("ab");
    const plain = new ScrollbackRing(6);
    plain.push("ab\n");
    plain.push("cdefghij"); // drops "ab\n" (a whole line), then is sliced: no newline in it
    expect(plain.text()).toBe("efghij");
    plain.push("\nk"); // the sliced chunk goes, mid-line: from the line after it
    expect(plain.text()).toBe("k");
  });

  it("stays within its bound and in order over many chunks", () => {
    const ring = new ScrollbackRing(1000);
    for (let i = 0; i < 5000; i += 1) ring.push(`line ${i}\n`);
    expect(ring.bytes).toBeLessThanOrEqual(1000);
    const lines = ring.text().split("\n").filter(Boolean);
    expect(lines.at(-1)).toBe("line 4999");
    const numbers = lines.map((line) => Number(line.slice(5)));
    expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] ?? 0) + i));
    expect(numbers.length).toBeGreaterThan(90);
  });
});
