/**
 * The sidecar's log lines (`ocb serve` writes them to stderr): one line per entry, as text for
 * a person or as JSON lines (`--log-format json`) for a log collector. Debug lines are left out.
 * Secrets are redacted before they reach here (`redactingLogger`).
 */
import type { Logger } from "../util/logger.js";

export const LOG_FORMATS = ["text", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function lineLogger(
  format: LogFormat,
  write: (line: string) => void,
  now: () => Date = () => new Date(),
): Logger {
  const line =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      const time = now().toISOString();
      if (format === "json") {
        write(`${JSON.stringify({ time, level, msg: message, ...plain(fields) })}\n`);
        return;
      }
      const rest = Object.entries(plain(fields))
        .map(
          ([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`,
        )
        .join(" ");
      write(`${time} ${level.padEnd(5)} ${message}${rest === "" ? "" : ` ${rest}`}\n`);
    };
  return { debug: () => {}, info: line("info"), warn: line("warn"), error: line("error") };
}

/** Errors as name and message (JSON.stringify would print `{}` for them). */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    copy[key] = value instanceof Error ? { name: value.name, message: value.message } : value;
  }
  return copy;
}
