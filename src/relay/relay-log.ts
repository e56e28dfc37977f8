/**
 * The relay's log: one line per event, made only of what the relay may know and keep (which
 * sidecar, which connection, a truncated address, sizes, times, close codes). Never frame
 * contents, handshake messages, signatures, URLs, query strings or headers: the builders here
 * take no such thing, so a call site cannot pass one by accident.
 */
import { createHmac, randomBytes } from "node:crypto";
import { isIPv4 } from "node:net";

export type RelayLogEvent =
  | "listen"
  | "register"
  | "refuse"
  | "replace"
  | "unregister"
  | "connect"
  | "join"
  | "close"
  | "limit";

export interface RelayLogFields {
  sidecar?: string;
  connection?: string;
  ip?: string;
  bytesIn?: number;
  bytesOut?: number;
  durationMs?: number;
  code?: number;
  /** A fixed word from the relay's own vocabulary (which limit, why refused). */
  why?: string;
}

export type RelayLogSink = (line: string) => void;

/**
 * Sidecar ids are logged as a keyed hash, the key random per process: lines of one run can be
 * followed, but a log does not tell which sidecars (whose ids are public) used the relay.
 */
export function relayLogger(
  sink: RelayLogSink,
): (event: RelayLogEvent, fields?: RelayLogFields) => void {
  const key = randomBytes(32);
  const sidecarTag = (id: string): string =>
    createHmac("sha256", key).update(id).digest("base64url").slice(0, 10);
  return (event, fields = {}) => {
    const parts = [new Date().toISOString(), `relay ${event}`];
    if (fields.sidecar !== undefined) parts.push(`sidecar=${sidecarTag(fields.sidecar)}`);
    if (fields.connection !== undefined) parts.push(`conn=${fields.connection.slice(0, 8)}`);
    if (fields.ip !== undefined) parts.push(`ip=${truncatedIp(fields.ip)}`);
    for (const name of ["bytesIn", "bytesOut", "durationMs", "code"] as const) {
      const value = fields[name];
      if (value !== undefined) parts.push(`${name}=${Math.round(value)}`);
    }
    if (fields.why !== undefined) parts.push(`why=${fields.why}`);
    sink(parts.join(" "));
  };
}

/** An address with its host part cut: a /24 of IPv4, a /48 of IPv6. */
export function truncatedIp(ip: string): string {
  const plain = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  if (isIPv4(plain)) return `${plain.split(".").slice(0, 3).join(".")}.0/24`;
  const groups = plain.split(":").slice(0, 3);
  return `${groups.join(":")}::/48`;
}
