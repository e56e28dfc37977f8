/**
 * What a user attaches to a prompt, turned into what is sent to OpenCode. Local files and raw
 * bytes are inlined as data: URLs so that a remote server sees them too; the transcript keeps
 * a short `ref` instead of the bytes.
 */
import { readFile, stat } from "node:fs/promises";
import { basename, extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lookup } from "mime-types";
import { UsageError } from "../errors.js";
import {
  fileProblem,
  realPathInside,
  resolveSessionDirectory,
  type SessionDirectory,
} from "./files/inside-directory.js";
import { textOf } from "./files/text-bytes.js";

/**
 * A local path (absolute, or relative to the session directory), an http(s), file:// or data:
 * URL; or raw bytes (`Uint8Array`) or base64 text with an optional MIME type and file name.
 */
export type AttachmentSpec = string | { data: Uint8Array | string; mime?: string; name?: string };

export interface Attachment {
  /** What goes upstream: a data: URL, or an http(s) URL as given. */
  uri: string;
  mime: string;
  /** The file name: basename of the path, last URL path segment, the given name, or "attachment". */
  name: string;
  /** What the transcript keeps instead of the bytes: a path, a URL, or `data:<mime>;name=…;bytes=…`. */
  ref: string;
  /** The absolute (symlink-free) local path, when the attachment came from one. */
  path?: string;
}

export interface ResolveAttachmentsOptions {
  /** The session directory: relative paths start here, and no local file may lie outside it. */
  directory: string;
  /** Largest file or decoded payload accepted; `DEFAULT_MAX_ATTACHMENT_BYTES` unless given. */
  maxBytes?: number;
}

export const DEFAULT_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** Validates every spec and inlines local files and raw data; the first problem throws `UsageError`. */
export async function resolveAttachments(
  specs: readonly AttachmentSpec[],
  options: ResolveAttachmentsOptions,
): Promise<Attachment[]> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new UsageError(
      `maxAttachmentBytes must be a positive whole number of bytes, got ${String(maxBytes)}`,
    );
  }
  // Only local paths need the directory, so a list of URLs works even if it is gone.
  let sessionDir: Promise<SessionDirectory> | undefined;
  const context: Context = {
    maxBytes,
    sessionDir: () => {
      sessionDir ??= resolveSessionDirectory(options.directory, "no local file can be attached");
      return sessionDir;
    },
  };
  const attachments: Attachment[] = [];
  // One at a time: the first bad spec is the one reported, and at most one file is in flight.
  for (const [index, spec] of specs.entries()) {
    attachments.push(await resolveOne(spec, index, context));
  }
  return attachments;
}

interface Context {
  readonly maxBytes: number;
  sessionDir(): Promise<SessionDirectory>;
}

const SUPPORTED =
  "a local path, an http(s) URL, a file:// URL, a data: URL, or { data, mime?, name? }";

async function resolveOne(spec: unknown, index: number, context: Context): Promise<Attachment> {
  if (typeof spec === "string") {
    const what = `attachment ${quote(spec)}`;
    if (spec.trim() === "")
      throw new UsageError(`attachment ${index + 1} is empty; pass ${SUPPORTED}`);
    if (/^data:/i.test(spec)) return fromDataUrl(spec, what, context.maxBytes);
    if (/^https?:/i.test(spec)) return fromHttpUrl(spec, what);
    if (/^file:/i.test(spec)) return fromLocalPath(filePathOf(spec, what), what, context);
    const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(spec)?.[1];
    if (scheme !== undefined) {
      throw new UsageError(`${what} uses the unsupported scheme "${scheme}:"; pass ${SUPPORTED}`);
    }
    return fromLocalPath(spec, what, context);
  }
  if (typeof spec === "object" && spec !== null && "data" in spec) {
    const name = "name" in spec && typeof spec.name === "string" ? ` (${quote(spec.name)})` : "";
    return fromRawData(spec, `attachment ${index + 1}${name}`, context.maxBytes);
  }
  const got = spec === null ? "null" : typeof spec;
  throw new UsageError(`attachment ${index + 1} is a ${got}; pass ${SUPPORTED}`);
}

// --- local files ---

function filePathOf(spec: string, what: string): string {
  try {
    return fileURLToPath(new URL(spec));
  } catch (error) {
    throw new UsageError(`${what} is not a valid local file:// URL; pass a plain path instead`, {
      cause: error,
    });
  }
}

async function fromLocalPath(given: string, what: string, context: Context): Promise<Attachment> {
  const dir = await context.sessionDir();
  const real = await realPathInside(dir, given, {
    what,
    outsideHint:
      "only files inside the session directory can be attached (copy the file there first)",
  });
  const info = await stat(real).catch((error: unknown) => {
    throw fileProblem(what, real, error);
  });
  if (info.isDirectory()) {
    throw new UsageError(`${what} is a directory (${real}); attach the files in it one by one`);
  }
  if (!info.isFile()) throw new UsageError(`${what} is not a regular file (${real})`);
  checkSize(what, info.size, context.maxBytes);
  const bytes = await readFile(real).catch((error: unknown) => {
    throw fileProblem(what, real, error);
  });
  checkSize(what, bytes.length, context.maxBytes); // it may have grown since the stat
  const name = basename(resolve(dir.given, given));
  const mime = detectMime(bytes, name);
  // The real path, not the one given: it is the file that was checked and read.
  return { uri: dataUrl(mime, bytes), mime, name, ref: real, path: real };
}

// --- URLs and raw data ---

function fromHttpUrl(spec: string, what: string): Attachment {
  let url: URL;
  try {
    url = new URL(spec);
  } catch (error) {
    throw new UsageError(`${what} is not a valid URL`, { cause: error });
  }
  const segment = url.pathname.split("/").filter(Boolean).at(-1);
  const name = segment === undefined ? "attachment" : decodeOrKeep(segment);
  const mime = mimeByExtension(name) ?? "application/octet-stream";
  return { uri: spec, mime, name, ref: spec };
}

function fromDataUrl(spec: string, what: string, maxBytes: number): Attachment {
  const parsed = parseDataUrl(spec);
  if (typeof parsed === "string") {
    throw new UsageError(
      `${what} is not a valid data: URL (${parsed}); the form is data:<mime>[;name=<name>][;base64],<payload>`,
    );
  }
  checkSize(what, parsed.bytes, maxBytes);
  const name = parsed.name ?? "attachment";
  return { uri: spec, mime: parsed.mime, name, ref: dataRef(parsed.mime, name, parsed.bytes) };
}

function fromRawData(spec: object, what: string, maxBytes: number): Attachment {
  const { data, mime: givenMime, name: givenName } = spec as Record<string, unknown>;
  if (givenName !== undefined && typeof givenName !== "string") {
    throw new UsageError(`${what} has a name that is not a string`);
  }
  if (givenMime !== undefined && (typeof givenMime !== "string" || !MIME_TYPE.test(givenMime))) {
    throw new UsageError(`${what} has mime ${quote(String(givenMime))}, which is not a MIME type`);
  }
  let bytes: Uint8Array;
  if (data instanceof Uint8Array) {
    bytes = data;
  } else if (typeof data === "string") {
    const text = data.replace(/\s+/g, "");
    const size = base64Size(text);
    if (size === undefined) {
      throw new UsageError(
        `${what} has string data that is not base64; pass bytes as a Uint8Array`,
      );
    }
    checkSize(what, size, maxBytes); // before decoding, so an oversized payload costs nothing
    bytes = Buffer.from(text, "base64");
  } else {
    throw new UsageError(`${what} has data that is neither a Uint8Array nor a base64 string`);
  }
  checkSize(what, bytes.length, maxBytes);
  const name = givenName || "attachment";
  const mime = givenMime ?? detectMime(bytes, name);
  return { uri: dataUrl(mime, bytes), mime, name, ref: dataRef(mime, name, bytes.length) };
}

const MIME_TYPE = /^[a-z0-9][\w!#$&^.+-]*\/[a-z0-9][\w!#$&^.+-]*$/i;

/** The parts of `data:<mime>[;key=value]*[;base64],<payload>`, or why it is malformed. */
function parseDataUrl(
  spec: string,
): { mime: string; name: string | undefined; bytes: number } | string {
  const comma = spec.indexOf(",");
  if (comma < 0) return "no comma before the payload";
  const [type = "", ...params] = spec.slice("data:".length, comma).split(";");
  if (type !== "" && !MIME_TYPE.test(type)) return `${quote(type)} is not a MIME type`;
  const base64 = params.at(-1)?.toLowerCase() === "base64";
  if (base64) params.pop();
  let name: string | undefined;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq <= 0) return `parameter ${quote(param)} is not key=value`;
    if (param.slice(0, eq).toLowerCase() === "name") name = decodeOrKeep(param.slice(eq + 1));
  }
  const payload = spec.slice(comma + 1);
  const bytes = base64 ? base64Size(payload) : percentEncodedSize(payload);
  if (bytes === undefined) return base64 ? "the payload is not base64" : "bad %-escape in payload";
  // RFC 2397: a missing type means text/plain.
  return { mime: type === "" ? "text/plain" : type, name, bytes };
}

/** Decoded size of base64 (standard or URL-safe alphabet), or undefined if it is not base64. */
function base64Size(text: string): number | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return undefined;
  const digits = text.replace(/=+$/, "").length;
  if (digits % 4 === 1 || (digits !== text.length && text.length % 4 !== 0)) return undefined;
  return Math.floor((digits * 3) / 4);
}

function percentEncodedSize(text: string): number | undefined {
  if (/%(?![0-9a-f]{2})/i.test(text)) return undefined;
  return Buffer.byteLength(text.replace(/%[0-9a-f]{2}/gi, "x"));
}

function dataUrl(mime: string, bytes: Uint8Array): string {
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  return `data:${mime};base64,${base64}`;
}

/** Encoded so a name with `;` or `,` cannot break the ref's shape. */
function dataRef(mime: string, name: string, bytes: number): string {
  return `data:${mime};name=${encodeURIComponent(name)};bytes=${bytes}`;
}

// --- shared ---

function checkSize(what: string, size: number, maxBytes: number): void {
  if (size > maxBytes) {
    throw new UsageError(
      `${what} is ${size} bytes, over the limit of ${maxBytes} bytes; ` +
        "raise maxAttachmentBytes or attach something smaller",
    );
  }
}

/** Short and payload-free, for messages: a data: URL shows only its header. */
function quote(text: string): string {
  const comma = /^data:/i.test(text) ? text.indexOf(",") : -1;
  const shown = comma >= 0 ? `${text.slice(0, comma + 1)}…` : text;
  return JSON.stringify(shown.length > 80 ? `${shown.slice(0, 79)}…` : shown);
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// --- MIME detection ---

/** Content beats the name: a misnamed image is still sent as what it is. */
const SIGNATURES: ReadonlyArray<{ mime: string; parts: ReadonlyArray<readonly [number, string]> }> =
  [
    { mime: "image/png", parts: [[0, "\x89PNG\r\n\x1a\n"]] },
    { mime: "image/jpeg", parts: [[0, "\xff\xd8\xff"]] },
    { mime: "image/gif", parts: [[0, "GIF8"]] },
    {
      mime: "image/webp",
      parts: [
        [0, "RIFF"],
        [8, "WEBP"],
      ],
    },
    { mime: "application/pdf", parts: [[0, "%PDF-"]] },
  ];

// The registry answers for the web: there `.ts` is an MPEG transport stream (video/mp2t). In a
// code repository it is TypeScript, and sending it as video would make the model skip it.
const SOURCE_CODE_TYPES: ReadonlyMap<string, string> = new Map([
  ["ts", "text/x-typescript"],
  ["mts", "text/x-typescript"],
  ["cts", "text/x-typescript"],
  ["py", "text/x-python"],
]);

function detectMime(bytes: Uint8Array, name: string): string {
  const signature = SIGNATURES.find(({ parts }) =>
    parts.every(([offset, magic]) =>
      [...magic].every((char, i) => bytes[offset + i] === char.charCodeAt(0)),
    ),
  );
  if (signature !== undefined) return signature.mime;
  return (
    mimeByExtension(name) ?? (looksLikeText(bytes) ? "text/plain" : "application/octet-stream")
  );
}

/** The type the file name's extension stands for (mime-db, the registry behind most of npm). */
function mimeByExtension(name: string): string | undefined {
  const extension = extname(name).slice(1).toLowerCase();
  // `lookup` also takes a bare extension: without this a file named "json" would be JSON.
  if (extension === "") return undefined;
  return SOURCE_CODE_TYPES.get(extension) ?? (lookup(extension) || undefined);
}

function looksLikeText(bytes: Uint8Array): boolean {
  return textOf(bytes) !== undefined;
}
