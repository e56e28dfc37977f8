import { describe, expect, it } from "vitest";
import { plainChunks } from "./plain-chunks.js";

const words = (count: number) =>
  Array.from({ length: count }, (_, index) => `tok${index + 1}`).join(" ");

describe("plainChunks", () => {
  it("keeps a short text whole", () => {
    expect(plainChunks("one two", 10)).toEqual(["one two"]);
  });

  it("cuts after a space in a chunk's second half, so no word is split", () => {
    const chunks = plainChunks(words(40), 30);
    expect(chunks.join("")).toBe(words(40));
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeLessThanOrEqual(30);
      expect(chunk.endsWith(" ")).toBe(true);
    }
  });

  it("cuts a text without spaces at the bound", () => {
    expect(plainChunks("x".repeat(25), 10)).toEqual([
      "x".repeat(10),
      "x".repeat(10),
      "x".repeat(5),
    ]);
  });

  it("never moves a full chunk as the text grows (each is drawn once)", () => {
    const text = words(3000);
    let previous: string[] = [];
    for (let length = 0; length <= text.length; length += 97) {
      const chunks = plainChunks(text.slice(0, length), 200);
      expect(chunks.slice(0, previous.length - 1)).toEqual(previous.slice(0, -1));
      previous = chunks;
    }
  });
});
