/**
 * An input's attachments as the API takes them (`{ name, dataUrl }` or `{ path }`, or files of
 * a multipart body) turned into what `Session.send` takes. The library then checks them as it
 * checks every attachment (local files only inside the session directory, sizes bounded).
 */
import type { MultipartFile, MultipartValue } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { AttachmentSpec } from "../../backends/attachments.js";
import type { AttachmentBody } from "../../wire/http.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";

/** The specs `Session.send` takes for the API's attachments; too large ones are refused first. */
export function attachmentSpecs(
  attachments: readonly AttachmentBody[],
  maxBytes: number,
): AttachmentSpec[] {
  return attachments.map((attachment, index) => {
    if ("path" in attachment) {
      if (/^[a-z][a-z0-9+.-]+:/i.test(attachment.path)) {
        throw new ApiError(
          "invalid_request",
          `attachment ${index + 1}: path ${JSON.stringify(attachment.path.slice(0, 80))} is a URL; ` +
            "pass a path inside the session directory, or the content as { name, dataUrl }",
        );
      }
      return attachment.path;
    }
    const size = dataUrlBytes(attachment.dataUrl);
    if (size !== undefined && size > maxBytes) {
      throw new ApiError(
        "too_large",
        `attachment ${index + 1} (${JSON.stringify(attachment.name)}) is ${size} bytes, over the limit of ${maxBytes}; ` +
          "attach something smaller",
      );
    }
    return fromDataUrl(attachment.dataUrl, attachment.name);
  });
}

/** The decoded size of a base64 data: URL's payload (undefined when it is not base64: the library judges it). */
function dataUrlBytes(dataUrl: string): number | undefined {
  const comma = dataUrl.indexOf(",");
  if (comma < 0 || !/;base64$/i.test(dataUrl.slice(0, comma))) return undefined;
  const payload = dataUrl.length - comma - 1;
  return Math.floor((payload * 3) / 4);
}

/**
 * A `{ name, dataUrl }` as raw data with its MIME type and name, so that what goes upstream is
 * a plain `data:<mime>;base64,…` URL however the client wrote it. A URL that does not parse is
 * passed on as it is: the library says what is wrong with it.
 */
function fromDataUrl(dataUrl: string, name: string): AttachmentSpec {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/is.exec(dataUrl);
  if (match === null) return dataUrl;
  const [, type = "", params = "", payload = ""] = match;
  const mime = type === "" ? "text/plain" : type;
  if (/;base64$/i.test(params)) return { data: payload, mime, name };
  try {
    return { data: new Uint8Array(Buffer.from(decodeURIComponent(payload))), mime, name };
  } catch {
    return dataUrl; // a bad %-escape
  }
}

const MULTIPART_FIELDS = new Set(["text", "delivery", "idempotencyKey", "ifCannotSteer"]);

/**
 * A multipart input (fields `text`, `delivery`, `idempotencyKey`, `ifCannotSteer`, and files)
 * as the JSON body of the same route, files as data: URLs; the route's schema then checks it.
 */
export async function multipartInput(
  request: FastifyRequest,
  ctx: SidecarContext,
): Promise<Record<string, unknown>> {
  try {
    return await readMultipart(request, ctx);
  } catch (error) {
    if (error instanceof ApiError || hasFastifyCode(error)) throw error;
    // busboy's own: no boundary, a body cut short, a broken header.
    const problem = error instanceof Error ? error.message : String(error);
    throw new ApiError(
      "invalid_request",
      `the multipart body is malformed (${problem}); send multipart/form-data with a boundary, or JSON`,
      { cause: error },
    );
  }
}

async function readMultipart(
  request: FastifyRequest,
  ctx: SidecarContext,
): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  const attachments: { name: string; dataUrl: string }[] = [];
  let total = 0;
  for await (const part of request.parts()) {
    if (part.type === "file") {
      const bytes = await fileBytes(part, ctx);
      total += bytes.length;
      if (total > ctx.limits.multipartBodyBytes) {
        throw new ApiError(
          "too_large",
          `the files of this input are over ${ctx.limits.multipartBodyBytes} bytes together; send fewer or smaller files`,
        );
      }
      const mime = part.mimetype || "application/octet-stream";
      attachments.push({
        name: part.filename || part.fieldname || "attachment",
        dataUrl: `data:${mime};base64,${bytes.toString("base64")}`,
      });
      continue;
    }
    body[fieldName(part)] = part.value;
  }
  if (attachments.length > 0) body.attachments = attachments;
  return body;
}

/** fastify's and its plugins' errors carry an `FST_…` code, which the error handler maps. */
function hasFastifyCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("FST_");
}

async function fileBytes(part: MultipartFile, ctx: SidecarContext): Promise<Buffer> {
  try {
    return await part.toBuffer();
  } catch (error) {
    if ((error as { code?: unknown }).code === "FST_REQ_FILE_TOO_LARGE") {
      throw new ApiError(
        "too_large",
        `file ${JSON.stringify(part.filename)} is over the limit of ${ctx.limits.attachmentBytes} bytes; attach something smaller`,
      );
    }
    throw error;
  }
}

function fieldName(part: MultipartValue): string {
  if (!MULTIPART_FIELDS.has(part.fieldname)) {
    throw new ApiError(
      "invalid_request",
      `unknown multipart field ${JSON.stringify(part.fieldname)}; the fields are ${[...MULTIPART_FIELDS].join(", ")} and files`,
    );
  }
  if (part.valueTruncated) {
    throw new ApiError("too_large", `the field ${part.fieldname} is too long`);
  }
  return part.fieldname;
}
