/**
 * The relay's three paths, parsed from a request's target. The query string is cut off and
 * never read or kept: nothing the relay needs travels there.
 */
import { SIDECAR_ID_PATTERN } from "./relay-identity.js";

export type RelayRoute =
  | { kind: "sidecar" }
  | { kind: "connect"; sidecarId: string }
  | { kind: "accept"; sidecarId: string; connectionId: string };

const CONNECTION_ID = /^[A-Za-z0-9_-]{22}$/;

export function relayRouteOf(target: string): RelayRoute | undefined {
  const path = target.split("?")[0] ?? "";
  const parts = path.split("/");
  // ["", "v1", "relay", kind, ...]
  if (parts[0] !== "" || parts[1] !== "v1" || parts[2] !== "relay") return undefined;
  const [kind, id, connectionId, ...rest] = parts.slice(3);
  if (kind === "sidecar" && id === undefined) return { kind: "sidecar" };
  if (id === undefined || !SIDECAR_ID_PATTERN.test(id)) {
    // An id of the wrong shape is refused as an unknown one is, after the upgrade, so
    // `connect` answers the same for every id.
    return kind === "connect" && connectionId === undefined && id !== undefined
      ? { kind: "connect", sidecarId: "" }
      : undefined;
  }
  if (kind === "connect" && connectionId === undefined) return { kind: "connect", sidecarId: id };
  if (kind === "accept" && connectionId !== undefined && rest.length === 0) {
    return CONNECTION_ID.test(connectionId)
      ? { kind: "accept", sidecarId: id, connectionId }
      : undefined;
  }
  return undefined;
}
