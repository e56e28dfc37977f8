/**
 * `client.send()`: an input's request body (JSON, or multipart when files are uploaded), its
 * idempotency key, and the one retry after a network failure. The key is what makes the retry
 * safe: when the connection broke after the sidecar admitted the input, the retry gets the
 * first answer back instead of a second admission.
 */
import type { AttachmentBody, SendInputBody } from "../wire/http.js";
import { BridgeClientError, BridgeConnectionError } from "./errors.js";

/** A file to upload (multipart): any `Blob` (a browser `File` is one). */
export interface UploadAttachment {
  name: string;
  blob: Blob;
}

/** An attachment: a data URL, a path inside the session directory, or a file to upload. */
export type InputAttachment = AttachmentBody | UploadAttachment;

export interface SendInput {
  text: string;
  /** Required: `steer` joins the running turn, `queue` becomes the next turn. */
  delivery: SendInputBody["delivery"];
  /** Reuse it to retry a send yourself; generated when absent. */
  idempotencyKey?: string;
  attachments?: InputAttachment[];
  /**
   * A steer while a turn runs on a backend that cannot steer: `fallback` (default) lets the
   * bridge queue it, `reject` makes the sidecar answer 422 `unsupported`.
   */
  ifCannotSteer?: SendInputBody["ifCannotSteer"];
}

/** The request body for `input`, with its key: the same body is sent again on a retry. */
export function inputBody(input: SendInput, idempotencyKey: string): SendInputBody | FormData {
  const attachments = input.attachments ?? [];
  const uploads = attachments.filter(isUpload);
  if (uploads.length === 0) {
    return {
      text: input.text,
      delivery: input.delivery,
      idempotencyKey,
      ...(attachments.length > 0 && { attachments: attachments as AttachmentBody[] }),
      ...(input.ifCannotSteer !== undefined && { ifCannotSteer: input.ifCannotSteer }),
    };
  }
  if (uploads.length !== attachments.length) {
    throw new BridgeClientError(
      "a send uploads files (multipart) or names attachments (paths, data URLs), not both: " +
        "turn the paths into uploads, or the uploads into data URLs",
    );
  }
  const form = new FormData();
  form.append("text", input.text);
  form.append("delivery", input.delivery);
  form.append("idempotencyKey", idempotencyKey);
  if (input.ifCannotSteer !== undefined) form.append("ifCannotSteer", input.ifCannotSteer);
  for (const upload of uploads) form.append("files", upload.blob, upload.name);
  return form;
}

function isUpload(attachment: InputAttachment): attachment is UploadAttachment {
  return "blob" in attachment;
}

/**
 * Runs `attempt` and, when it failed on the network (not a refusal, a timeout or an abort),
 * once more: both with the same body, so the same idempotency key.
 */
export async function withOneRetry<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof BridgeConnectionError)) throw error;
    return await attempt();
  }
}

/** A random key (UUID v4 where the runtime offers it: browsers only in secure contexts). */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
