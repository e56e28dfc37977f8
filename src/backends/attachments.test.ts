import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { type AttachmentSpec, resolveAttachments } from "./attachments.js";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

let root: string;
let session: string;

beforeEach(async () => {
  // realpath: on some systems the temp dir itself is behind a symlink.
  root = await realpath(await mkdtemp(join(tmpdir(), "ocb-attachments-")));
  session = join(root, "session");
  await mkdir(session);
  await writeFile(join(root, "outside.txt"), "secret");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function resolveIn(specs: readonly AttachmentSpec[], maxBytes?: number) {
  return resolveAttachments(
    specs,
    maxBytes === undefined ? { directory: session } : { directory: session, maxBytes },
  );
}

async function refusal(spec: AttachmentSpec, maxBytes?: number): Promise<UsageError> {
  const error = await resolveIn([spec], maxBytes).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe("resolveAttachments: local files", () => {
  it("inlines a png inside the session directory as a data: URL and keeps its path", async () => {
    const file = join(session, "shot.png");
    await writeFile(file, PNG);
    const [attachment] = await resolveIn([file]);
    expect(attachment).toEqual({
      uri: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`,
      mime: "image/png",
      name: "shot.png",
      ref: file,
      path: file,
    });
  });

  it("resolves a relative path against the session directory, and accepts a file:// URL", async () => {
    await mkdir(join(session, "docs"));
    const file = join(session, "docs", "notes.md");
    await writeFile(file, "# notes\n");
    const [relative, url] = await resolveIn(["docs/notes.md", pathToFileURL(file).href]);
    for (const attachment of [relative, url]) {
      expect(attachment).toMatchObject({ mime: "text/markdown", name: "notes.md", path: file });
      expect(attachment?.uri).toBe(`data:text/markdown;base64,${btoa("# notes\n")}`);
    }
  });

  it("refuses ../ and absolute paths outside the directory, existing or not", async () => {
    for (const spec of ["../outside.txt", join(root, "outside.txt"), "../missing.txt"]) {
      const error = await refusal(spec);
      expect(error.message).toContain("outside the session directory");
      expect(error.message).toContain(session);
    }
  });

  it("does not take /a/bc to be inside /a/b", async () => {
    await mkdir(`${session}2`);
    await writeFile(join(`${session}2`, "x.txt"), "x");
    expect((await refusal(join(`${session}2`, "x.txt"))).message).toContain("outside");
  });

  it("refuses a symlink inside that points outside", async () => {
    await symlink(join(root, "outside.txt"), join(session, "link.txt"));
    const error = await refusal("link.txt");
    expect(error.message).toContain(join(root, "outside.txt"));
    expect(error.message).toContain("outside the session directory");
  });

  it("refuses a directory (including the session directory itself) and a missing file", async () => {
    await mkdir(join(session, "sub"));
    expect((await refusal("sub")).message).toMatch(/is a directory/);
    expect((await refusal(".")).message).toMatch(/is a directory/);
    expect((await refusal("nope.png")).message).toMatch(/does not exist/);
  });

  it.skipIf(process.getuid?.() === 0)("refuses an unreadable file", async () => {
    const file = join(session, "locked.txt");
    await writeFile(file, "x");
    await chmod(file, 0o000);
    expect((await refusal(file)).message).toMatch(/cannot be read/);
  });

  it("refuses a file over the limit, naming the size, the limit and the option", async () => {
    await writeFile(join(session, "big.txt"), "x".repeat(100));
    const error = await refusal("big.txt", 10);
    expect(error.message).toMatch(/100 bytes/);
    expect(error.message).toMatch(/limit of 10 bytes/);
    expect(error.message).toContain("maxAttachmentBytes");
  });

  it("sniffs text without an extension and binary with NULs", async () => {
    await writeFile(join(session, "README"), "héllo\n");
    await writeFile(join(session, "blob"), Uint8Array.from([1, 0, 2, 3]));
    await writeFile(join(session, "image.dat"), PNG); // content beats the name
    const [text, binary, image] = await resolveIn(["README", "blob", "image.dat"]);
    expect(text?.mime).toBe("text/plain");
    expect(binary?.mime).toBe("application/octet-stream");
    expect(image?.mime).toBe("image/png");
  });

  it("takes a type from the registry by extension, except TypeScript, which is not video", async () => {
    await writeFile(join(session, "report.docx"), Uint8Array.from([0x50, 0x4b, 3, 4, 0, 0]));
    await writeFile(join(session, "main.ts"), "export const x = 1;\n");
    await writeFile(join(session, "json"), "{}\n"); // a name without an extension is not one
    const [docx, ts, bare] = await resolveIn(["report.docx", "main.ts", "json"]);
    expect(docx?.mime).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(ts?.mime).toBe("text/x-typescript");
    expect(bare?.mime).toBe("text/plain");
  });

  it("refuses when the session directory does not exist", async () => {
    const error = await resolveAttachments(["a.txt"], { directory: join(root, "gone") }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/session directory .* does not exist/);
  });
});

describe("resolveAttachments: raw data and URLs", () => {
  it("returns nothing for nothing", async () => {
    expect(await resolveIn([])).toEqual([]);
  });

  it("sniffs raw bytes without a mime, and lets an explicit mime win", async () => {
    const [sniffed, given] = await resolveIn([
      { data: PNG },
      { data: PNG, mime: "application/x-custom", name: "p.bin" },
    ]);
    expect(sniffed).toEqual({
      uri: `data:image/png;base64,${Buffer.from(PNG).toString("base64")}`,
      mime: "image/png",
      name: "attachment",
      ref: `data:image/png;name=attachment;bytes=${PNG.length}`,
    });
    expect(given).toMatchObject({ mime: "application/x-custom", name: "p.bin" });
    expect(given?.uri.startsWith("data:application/x-custom;base64,")).toBe(true);
  });

  it("accepts base64 text and refuses text that is not base64", async () => {
    const [attachment] = await resolveIn([{ data: btoa("hello"), name: "hi.txt" }]);
    expect(attachment).toMatchObject({
      uri: `data:text/plain;base64,${btoa("hello")}`,
      mime: "text/plain",
      ref: "data:text/plain;name=hi.txt;bytes=5",
    });
    expect((await refusal({ data: "not base64!" })).message).toMatch(/not base64/);
    expect((await refusal({ data: btoa("x".repeat(64)) }, 16)).message).toMatch(/64 bytes/);
  });

  it("passes a data: URL through, with a ref that has no payload", async () => {
    const payload = Buffer.from(PNG).toString("base64");
    const uri = `data:image/png;name=shot.png;base64,${payload}`;
    const [attachment] = await resolveIn([uri]);
    expect(attachment).toEqual({
      uri,
      mime: "image/png",
      name: "shot.png",
      ref: `data:image/png;name=shot.png;bytes=${PNG.length}`,
    });
    expect(attachment?.ref).not.toContain(payload);
    expect((await refusal(uri, 4)).message).toContain("limit of 4 bytes");
  });

  it("passes an http(s) URL through, with a mime from its extension", async () => {
    const [pdf, page] = await resolveIn([
      "https://example.com/docs/spec.pdf?x=1",
      "http://example.com/",
    ]);
    expect(pdf).toEqual({
      uri: "https://example.com/docs/spec.pdf?x=1",
      mime: "application/pdf",
      name: "spec.pdf",
      ref: "https://example.com/docs/spec.pdf?x=1",
    });
    expect(page).toMatchObject({ mime: "application/octet-stream", name: "attachment" });
  });

  it.each([
    ["a data: URL without a comma", "data:image/png;base64"],
    ["a data: URL with a bad type", "data:nonsense;base64,AAAA"],
    ["a data: URL with a bad base64 payload", "data:image/png;base64,***"],
    ["an ftp URL", "ftp://example.com/file.txt"],
    ["an empty string", ""],
    ["a number", 42 as unknown as AttachmentSpec],
    ["an object without data", { name: "x" } as unknown as AttachmentSpec],
  ])("refuses %s", async (_label, spec) => {
    const error = await refusal(spec);
    expect(error.message).not.toMatch(/\n\s+at /);
  });

  it("never repeats a data: URL's payload in an error", async () => {
    const error = await refusal("data:image/png;base64,SECRETSECRET***");
    expect(error.message).not.toContain("SECRET");
  });
});
