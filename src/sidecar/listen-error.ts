/**
 * Why the sidecar could not listen, as a user can act on it: a port in use, one the user may
 * not bind, or an address this machine does not have. Anything else stays the error it was.
 */
import { UsageError } from "../errors.js";

const FIXES: Record<string, (where: string, port: number) => string> = {
  EADDRINUSE: (where) =>
    `the sidecar cannot listen on ${where}: another process already listens there. Stop it, or choose another port (--port, or none for a free one)`,
  EACCES: (where, port) =>
    `the sidecar may not listen on ${where}${port < 1024 ? " (ports below 1024 need privileges)" : ""}: choose another port (--port, or none for a free one)`,
  EADDRNOTAVAIL: (where) =>
    `the sidecar cannot listen on ${where}: this machine has no such address. Choose one of its addresses (--host), e.g. 127.0.0.1`,
};

export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const fix = code === undefined ? undefined : FIXES[code];
  if (fix === undefined) return error;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new UsageError(fix(where, port), { cause: error });
}
