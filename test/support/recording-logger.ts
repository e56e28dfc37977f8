/** A Logger for tests that keeps every entry, to assert on what was (not) logged. */
import type { Logger } from "../../src/util/logger.js";

export interface LogEntry {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface RecordingLogger extends Logger {
  readonly entries: LogEntry[];
  /** Resolves with the first warning. */
  readonly warned: Promise<LogEntry>;
}

export function recordingLogger(): RecordingLogger {
  const entries: LogEntry[] = [];
  let onWarn: (entry: LogEntry) => void = () => {};
  const warned = new Promise<LogEntry>((resolve) => {
    onWarn = resolve;
  });
  const log =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      const entry = { level, message, fields };
      entries.push(entry);
      if (level === "warn") onWarn(entry);
    };
  return {
    entries,
    warned,
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}
