/** The sent images a sidecar keeps to show again: only drawable images, within a byte bound. */
import { describe, expect, it } from "vitest";
import { SentImages } from "./sent-images.js";

const image = (size: number, mime = "image/png") => ({ mime, bytes: new Uint8Array(size) });

describe("SentImages", () => {
  it("keeps raster images by session, input and index; never SVG or other files", () => {
    const kept = new SentImages(1000);
    kept.keep("ses_1", "in_1", 0, image(10));
    kept.keep("ses_1", "in_1", 1, image(10, "image/svg+xml"));
    kept.keep("ses_1", "in_1", 2, image(10, "text/plain"));
    expect(kept.get("ses_1", "in_1", 0)?.bytes.byteLength).toBe(10);
    expect(kept.get("ses_1", "in_1", 1)).toBeUndefined();
    expect(kept.get("ses_1", "in_1", 2)).toBeUndefined();
    expect(kept.get("ses_2", "in_1", 0)).toBeUndefined();
    expect(kept.bytes).toBe(10);
  });

  it("stays within its bound, dropping the least recently kept or read first", () => {
    const kept = new SentImages(100);
    kept.keep("s", "a", 0, image(40));
    kept.keep("s", "b", 0, image(40));
    kept.get("s", "a", 0); // read: now the most recent
    kept.keep("s", "c", 0, image(40));
    expect(kept.bytes).toBe(80);
    expect(kept.get("s", "b", 0)).toBeUndefined();
    expect(kept.get("s", "a", 0)).toBeDefined();
    kept.keep("s", "big", 0, image(101)); // over the bound alone: not kept, nothing dropped
    expect(kept.bytes).toBe(80);
    kept.keep("s", "a", 0, image(30)); // the same key again replaces it
    expect(kept.bytes).toBe(70);
  });
});
