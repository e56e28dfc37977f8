/** Where the library reports what it does. Silent unless the caller passes one. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ignore = (): void => {};

/** The default logger: drops everything. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
