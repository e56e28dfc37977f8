/**
 * An input's attachments as the API takes them (`{ name, dataUrl }` or `{ path }`, or files of
 * a multipart body) turned into what `Session.send` takes. The library then checks them as it
 * checks every attachment (local files only inside the session directory, sizes bounded).
 */
import type { MultipartFile, MultipartValue } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { AttachmentSpec } from "../../backends/attachments.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { AttachmentBody } from "../protocol/http.js";

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
    return withName(attachment.dataUrl, attachment.name);
  });
}

/** The decoded size of a base64 data: URL's payload (undefined when it is not base64: the library judges it). */
function dataUrlBytes(dataUrl: string): number | undefined {
  const comma = dataUrl.indexOf(",");
  if (comma < 0 || !/;base64$/i.test(dataUrl.slice(0, comma))) return undefined;
  const payload = dataUrl.length - comma - 1;
  return Math.floor((payload * 3) / 4);
}

/** `data:<mime>;name=<name>…`: the library reads the file name from the URL. */
function withName(dataUrl: string, name: string): string {
  const comma = dataUrl.indexOf(",");
  if (comma < 0 || /;name=/i.test(dataUrl.slice(0, comma))) return dataUrl;
  const header = dataUrl.slice("data:".length, comma).split(";");
  const [mime = "", ...params] = header;
  return `data:${[mime, `name=${encodeURIComponent(name)}`, ...params].join(";")}${dataUrl.slice(comma)}`;
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
