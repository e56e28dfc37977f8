/** An attachment URI as a legacy prompt's file part. */
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "../../errors.js";
import type { PartInput } from "../../protocol/legacy/session.js";

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** `file://…` or `data:mime;…` to a file part; anything else is refused. */
export function filePartOf(uri: string): PartInput {
  if (uri.startsWith("data:")) {
    const mime = /^data:([^;,]+)/.exec(uri)?.[1] ?? "application/octet-stream";
    return { type: "file", mime, url: uri };
  }
  if (uri.startsWith("file://")) {
    const path = fileURLToPath(uri);
    const extension = path.split(".").pop()?.toLowerCase() ?? "";
    return {
      type: "file",
      mime: MIME_BY_EXTENSION[extension] ?? "text/plain",
      url: uri,
      filename: basename(path),
    };
  }
  throw new UsageError(
    `attachment ${JSON.stringify(uri.slice(0, 80))} is neither a file:// nor a data: URI`,
  );
}
