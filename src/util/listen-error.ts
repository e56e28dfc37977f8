/**
 * Why a server (the sidecar, the relay) could not listen, as a user can act on it: a port in use, one the user may
 * not bind, or an address this machine does not have. Anything else stays the error it was.
 */
import { UsageError } from "../errors.js";

const FIXES: Record<string, (who: string, where: string, port: number) => string> = {
  EADDRINUSE: (who, where) =>
    `${who} cannot listen on ${where}: another process already listens there. Stop it, or choose another port (--port, or none for a free one)`,
  EACCES: (who, where, port) =>
    `${who} may not listen on ${where}${port < 1024 ? " (ports below 1024 need privileges)" : ""}: choose another port (--port, or none for a free one)`,
  EADDRNOTAVAIL: (who, where) =>
    `${who} cannot listen on ${where}: this machine has no such address. Choose one of its addresses (--host), e.g. 127.0.0.1`,
};

/** `who`: the server, as the message names it ("the sidecar", "the relay"). */
export function listenError(
  error: unknown,
  host: string,
  port: number,
  who = "the sidecar",
): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const fix = code === undefined ? undefined : FIXES[code];
  if (fix === undefined) return error;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return new UsageError(fix(who, where, port), { cause: error });
}
