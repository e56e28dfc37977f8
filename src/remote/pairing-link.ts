/**
 * The pairing link: what a device needs to pair with a sidecar through a relay, in the URL's
 * fragment (never sent to a server, never in a Referer): the relays, the sidecar's id and its
 * Noise static key (pinned: the device refuses any other), the pairing's id and its one-time
 * secret (the psk of the first handshake). Whoever holds the link within its ten minutes may
 * pair once; after that it is worth nothing.
 */
import { fromBase64url, toBase64url } from "../util/base64url.js";
import { RemoteAccessError } from "./remote-errors.js";

/** The fragment's first field: a link of another version is refused, not misread. */
const VERSION_FIELD = "ocb-pair";
const VERSION = "1";
const MAX_RELAYS = 4;
const ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export interface PairingOffer {
  /** ws:// or wss:// base URLs, tried in order. */
  readonly relays: readonly string[];
  readonly sidecarId: string;
  /** The sidecar's X25519 static public key, 32 bytes. */
  readonly sidecarKey: Uint8Array;
  readonly pairingId: string;
  /** 32 bytes, used once. */
  readonly secret: Uint8Array;
}

/** `base` (a page that pairs: the web chat's address, or any URL) with the offer in its fragment. */
export function pairingLink(base: string, offer: PairingOffer): string {
  const fragment = new URLSearchParams({ [VERSION_FIELD]: VERSION });
  for (const relay of offer.relays) fragment.append("relay", relay);
  fragment.set("sidecar", offer.sidecarId);
  fragment.set("key", toBase64url(offer.sidecarKey));
  fragment.set("pairing", offer.pairingId);
  fragment.set("secret", toBase64url(offer.secret));
  return `${base.replace(/#.*$/, "")}#${fragment.toString()}`;
}

/** True when `link`'s fragment is a pairing offer (of any version): a page checks before it parses. */
export function isPairingLink(link: string): boolean {
  const hash = link.indexOf("#");
  return hash >= 0 && new URLSearchParams(link.slice(hash + 1)).has(VERSION_FIELD);
}

/** The offer in `link` (the whole link or its fragment), or a RemoteAccessError saying what is wrong. */
export function parsePairingLink(link: string): PairingOffer {
  const hash = link.indexOf("#");
  const fields = new URLSearchParams(hash >= 0 ? link.slice(hash + 1) : link);
  const bad = (what: string) =>
    new RemoteAccessError(
      "bad-link",
      `not a pairing link: ${what}; copy the whole link (or scan the code) that \`ocb pair\` shows`,
    );
  const version = fields.get(VERSION_FIELD);
  if (version === null) throw bad("no ocb-pair field in its fragment");
  if (version !== VERSION) {
    throw new RemoteAccessError(
      "bad-link",
      `this pairing link is of version ${version}, this client reads version ${VERSION}: update one of them`,
    );
  }
  const relays = fields.getAll("relay");
  if (relays.length === 0 || relays.length > MAX_RELAYS) {
    throw bad(`it names ${relays.length} relays (1 to ${MAX_RELAYS})`);
  }
  for (const relay of relays) {
    if (!isRelayUrl(relay))
      throw bad(`the relay ${JSON.stringify(relay)} is not a ws:// or wss:// URL`);
  }
  const sidecarId = fields.get("sidecar") ?? "";
  const pairingId = fields.get("pairing") ?? "";
  if (!ID_PATTERN.test(sidecarId)) throw bad("its sidecar id is not one");
  if (!ID_PATTERN.test(pairingId)) throw bad("its pairing id is not one");
  const sidecarKey = fromBase64url(fields.get("key") ?? "");
  const secret = fromBase64url(fields.get("secret") ?? "");
  if (sidecarKey?.length !== 32) throw bad("its key is not 32 bytes of base64url");
  if (secret?.length !== 32) throw bad("its secret is not 32 bytes of base64url");
  return { relays, sidecarId, sidecarKey, pairingId, secret };
}

export function isRelayUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (
      (url.protocol === "ws:" || url.protocol === "wss:") && url.search === "" && url.hash === ""
    );
  } catch {
    return false;
  }
}
