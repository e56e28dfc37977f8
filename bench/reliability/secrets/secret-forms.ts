/**
 * The forms a secret can be written in: as is, URL-encoded, JSON-escaped, in Basic auth
 * (`user:secret`, base64), and in base64 or base64url anywhere inside a longer encoded run
 * (three alignments: the bytes before it shift its encoding). Each form is searched as bytes.
 */
import { DEFAULT_USERNAME } from "../../../src/server/server-env.js";

export interface SecretForm {
  /** Which form ("raw", "base64 +1", …): named in a finding, never the secret itself. */
  form: string;
  bytes: Buffer;
}

/** The part of base64(`offset` bytes, then `secret`) that depends on the secret's bytes only. */
function base64Inside(secret: Buffer, offset: number, alphabet: "base64" | "base64url"): string {
  const padded = Buffer.concat([Buffer.alloc(offset), secret]);
  const encoded = padded.toString(alphabet);
  // Whole 3-byte groups only: the first holds the leading bytes when offset > 0, the last may
  // be cut short (its characters then depend on what follows the secret).
  const first = offset === 0 ? 0 : 4;
  const last = Math.floor(padded.length / 3) * 4;
  return encoded.slice(first, last);
}

export function secretForms(secret: string): SecretForm[] {
  const raw = Buffer.from(secret, "utf8");
  const forms = new Map<string, string>([
    ["raw", secret],
    ["URL-encoded", encodeURIComponent(secret)],
    ["JSON-escaped", JSON.stringify(secret).slice(1, -1)],
    ["Basic auth", Buffer.from(`${DEFAULT_USERNAME}:${secret}`).toString("base64")],
  ]);
  for (const offset of [0, 1, 2]) {
    forms.set(`base64 +${offset}`, base64Inside(raw, offset, "base64"));
    forms.set(`base64url +${offset}`, base64Inside(raw, offset, "base64url"));
  }
  const seen = new Set<string>();
  const result: SecretForm[] = [];
  for (const [form, text] of forms) {
    // A form that is the same text as one before it, or too short to tell apart, is not searched twice.
    if (seen.has(text) || text.length < 8) continue;
    seen.add(text);
    result.push({ form, bytes: Buffer.from(text, "utf8") });
  }
  return result;
}
