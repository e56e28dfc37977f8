/**
 * The few JSON messages of the relay's own protocol, on a sidecar's control socket and as the
 * first message of its data sockets. Everything else the relay carries is opaque binary.
 */
import { z } from "zod";
import { SIDECAR_ID_PATTERN } from "./relay-identity.js";

const TOKEN = z.string().regex(/^[A-Za-z0-9_-]{22}$/);

/** Relay to sidecar, on the control socket. */
export const RelayToSidecar = z.discriminatedUnion("type", [
  z.object({ type: z.literal("challenge"), challenge: TOKEN }),
  z.object({ type: z.literal("registered"), sidecarId: z.string().regex(SIDECAR_ID_PATTERN) }),
  z.object({ type: z.literal("incoming"), connectionId: TOKEN }),
]);
export type RelayToSidecar = z.infer<typeof RelayToSidecar>;

/** Sidecar to relay: the answer to the challenge. */
export const Registration = z.object({
  type: z.literal("register"),
  sidecarId: z.string().regex(SIDECAR_ID_PATTERN),
  publicKey: z.string().max(64),
  signature: z.string().max(128),
});
export type Registration = z.infer<typeof Registration>;

/** Sidecar to relay: the first message of a data socket. */
export const Acceptance = z.object({ type: z.literal("accept"), signature: z.string().max(128) });
export type Acceptance = z.infer<typeof Acceptance>;

/** A text message parsed with `schema`, or undefined for binary, bad JSON or a bad shape. */
export function parseRelayMessage<T>(
  schema: z.ZodType<T>,
  data: unknown,
  isBinary: boolean,
): T | undefined {
  if (isBinary || !Buffer.isBuffer(data)) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(data.toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
