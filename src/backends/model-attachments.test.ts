import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import type { Attachment } from "./attachments.js";
import { checkModelTakes, forTheModel, INLINE_TEXT_MAX_BYTES } from "./model-attachments.js";

function attached(name: string, mime: string, bytes: Uint8Array | string): Attachment {
  const data = Buffer.from(bytes).toString("base64");
  return { uri: `data:${mime};base64,${data}`, mime, name, ref: name };
}

describe("forTheModel", () => {
  it("sends images and PDFs as media, text of any type as text", () => {
    const png = attached("a.png", "image/png", "\x89PNG");
    const pdf = attached("a.pdf", "application/pdf", "%PDF-1.4");
    const json = attached("a.json", "application/json", '{"a":1}');
    const code = attached("a.rs", "application/octet-stream", "fn main() {}\n");
    const split = forTheModel([png, pdf, json, code]);
    expect(split.media).toEqual([png, pdf]);
    expect(split.texts).toEqual([
      { name: "a.json", mime: "application/json", text: '{"a":1}' },
      { name: "a.rs", mime: "application/octet-stream", text: "fn main() {}\n" },
    ]);
  });

  it("leaves an http(s) URL to OpenCode, but for a text one (it would go as media)", () => {
    const url = { uri: "https://example.com/a.png", mime: "image/png", name: "a.png", ref: "x" };
    expect(forTheModel([url]).media).toEqual([url]);
    const text = { uri: "https://example.com/a.txt", mime: "text/plain", name: "a.txt", ref: "x" };
    expect(() => forTheModel([text])).toThrow(/a\.txt is text \(text\/plain\) behind a URL/);
  });

  it("refuses a binary it cannot send, and text past the bound, saying what to do", () => {
    const blob = attached("blob.bin", "application/octet-stream", new Uint8Array([0, 255, 1]));
    expect(() => forTheModel([blob])).toThrow(UsageError);
    expect(() => forTheModel([blob])).toThrow(/takes images .*PDFs and text files/);
    const big = attached("big.txt", "text/plain", "x".repeat(INLINE_TEXT_MAX_BYTES + 1));
    expect(() => forTheModel([big])).toThrow(/over the 262144 bytes/);
  });
});

describe("checkModelTakes", () => {
  const model = { providerID: "demo", modelID: "demo-1" };
  const pdf = attached("doc.pdf", "application/pdf", "%PDF-1.4");
  const png = attached("a.png", "image/png", "\x89PNG");
  const txt = attached("a.txt", "text/plain", "hello");

  it("refuses a medium the catalog says the model does not take, naming what it takes", () => {
    expect(() => checkModelTakes([pdf], model, ["text", "image"])).toThrow(
      /doc\.pdf \(application\/pdf\) cannot be sent to demo\/demo-1: it takes text, image input/,
    );
    expect(() => checkModelTakes([png], model, ["text"])).toThrow(UsageError);
  });

  it("lets through what it takes, text always, and everything when the catalog does not say", () => {
    checkModelTakes([png, txt], model, ["text", "image"]);
    checkModelTakes([txt], model, ["text"]);
    checkModelTakes([pdf], model, undefined);
  });
});
