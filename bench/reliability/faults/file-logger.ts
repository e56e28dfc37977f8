/**
 * The bridge's log written to a file in the scenario's work dir, as JSON lines (what the
 * secrets scan reads). Not redacted on purpose: the bridge must not log a secret by itself.
 */
import { createWriteStream } from "node:fs";
import { lineLogger } from "../../../src/sidecar/log-lines.js";
import type { Logger } from "../../../src/util/logger.js";

export interface FileLogger {
  logger: Logger;
  /** Lines written at warn level or above (reconnects, restarts): a note's figure. */
  warnings(): number;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

export function fileLogger(path: string): FileLogger {
  const file = createWriteStream(path, { flags: "a" });
  let warnings = 0;
  const lines = lineLogger("json", (line) => file.write(line));
  const counted =
    (write: Logger["warn"]): Logger["warn"] =>
    (message, fields) => {
      warnings += 1;
      write(message, fields);
    };
  return {
    logger: { ...lines, warn: counted(lines.warn), error: counted(lines.error) },
    warnings: () => warnings,
    close: () => new Promise<void>((resolve) => file.end(resolve)),
  };
}
