/**
 * How each attachment reaches the model. Providers take images and PDFs as media; anything else
 * sent as media fails the turn ("OpenAI Chat does not support media type text/plain"), and on
 * OpenCode 1.18.33's `/api` the failing message stays in the session, so every later turn of it
 * fails the same way. So: images and PDFs go as media (OpenCode replaces one the model cannot
 * take by a note), text of any type goes as text in the prompt, within a bound, and whatever
 * else is refused before anything is sent, saying what the model takes.
 */
import { UsageError } from "../errors.js";
import type { InlinedText } from "../events/inlined-texts.js";
import type { Attachment } from "./attachments.js";

/** The most text of one attached file put into a prompt (a model's context is not a disk). */
export const INLINE_TEXT_MAX_BYTES = 256 * 1024;

const MEDIA_TYPES = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
]);

/** Text by its type, whatever its bytes say (a JSON, a YAML, a script). */
const TEXT_TYPE =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|yaml|x-yaml|toml|javascript|x-sh|sql|x-httpd-php)$)/i;

/** The attachments a prompt sends: as media, and as text. */
export interface ModelAttachments {
  media: Attachment[];
  texts: InlinedText[];
}

/** Splits `files` by how they reach the model; a file that cannot is a UsageError. */
export function forTheModel(files: readonly Attachment[]): ModelAttachments {
  const media: Attachment[] = [];
  const texts: InlinedText[] = [];
  for (const file of files) {
    const bytes = dataUrlBytes(file.uri);
    if (bytes === undefined && TEXT_TYPE.test(file.mime)) {
      // OpenCode fetches a URL and sends what it got as media: a text fails, as above.
      throw new UsageError(
        `${file.name} is text (${file.mime}) behind a URL, which OpenCode would send to the model as media, failing the turn; ` +
          "attach its content instead (a local file, a data: URL or { data, name })",
      );
    }
    // Else an http(s) URL is fetched by OpenCode: its bytes are not known here.
    if (bytes === undefined || MEDIA_TYPES.has(file.mime.toLowerCase())) {
      media.push(file);
      continue;
    }
    const text = textOf(bytes, file.mime);
    if (text === undefined) {
      throw new UsageError(
        `${file.name} (${file.mime}) cannot be sent to the model: it takes images (PNG, JPEG, GIF, WebP), PDFs and text files; ` +
          "put the file in the session directory and ask the agent to read it",
      );
    }
    if (bytes.length > INLINE_TEXT_MAX_BYTES) {
      throw new UsageError(
        `${file.name} is ${bytes.length} bytes of text, over the ${INLINE_TEXT_MAX_BYTES} bytes a prompt takes of one file; ` +
          "attach a part of it, or put it in the session directory and ask the agent to read it",
      );
    }
    texts.push({ name: file.name, mime: file.mime, text });
  }
  return { media, texts };
}

/** The kind of input a medium needs of the model (its catalog's `capabilities.input`). */
function inputKindOf(mime: string): string | undefined {
  if (mime.startsWith("image/")) return "image";
  if (mime === "application/pdf") return "pdf";
  return undefined;
}

/**
 * Refuses (a UsageError) media the model does not take, when its catalog says what it takes
 * (`inputs`); text files are text to every model.
 */
export function checkModelTakes(
  files: readonly Attachment[],
  model: { providerID: string; modelID: string },
  inputs: readonly string[] | undefined,
): void {
  if (inputs === undefined) return;
  for (const file of forTheModel(files).media) {
    const kind = inputKindOf(file.mime.toLowerCase());
    if (kind === undefined || inputs.includes(kind)) continue;
    throw new UsageError(
      `${file.name} (${file.mime}) cannot be sent to ${model.providerID}/${model.modelID}: it takes ${inputs.join(", ")} input; ` +
        "switch to a model that takes it, or send it as text",
    );
  }
}

/** The bytes as text: by their type, or when they are UTF-8 with no NUL; else undefined. */
function textOf(bytes: Uint8Array, mime: string): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  if (TEXT_TYPE.test(mime)) return text;
  return text.includes("\0") ? undefined : text;
}

function dataUrlBytes(uri: string): Uint8Array | undefined {
  if (!/^data:/i.test(uri)) return undefined;
  const comma = uri.indexOf(",");
  const header = uri.slice(0, comma);
  const payload = uri.slice(comma + 1);
  if (/;base64$/i.test(header)) return Buffer.from(payload, "base64");
  return Buffer.from(
    payload.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    ),
    "latin1",
  );
}
