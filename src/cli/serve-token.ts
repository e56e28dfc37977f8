/** The access token of `ocb serve`: chosen by the user (`OCB_TOKEN`) or generated. */
import { randomBytes } from "node:crypto";
import { UsageError } from "../errors.js";
import { isLoopbackHost } from "../sidecar/security.js";
import { MIN_TOKEN_LENGTH } from "../sidecar/sidecar.js";

/** `OCB_TOKEN`, or a generated one (loopback only: on the network a token must be chosen). */
export function chooseToken(
  host: string,
  given: string | undefined,
): { value: string; generated: boolean } {
  if (given !== undefined && given !== "") {
    if (given.length < MIN_TOKEN_LENGTH || /\s/.test(given)) {
      throw new UsageError(
        `OCB_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces; generate one with \`openssl rand -hex 32\``,
      );
    }
    return { value: given, generated: false };
  }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--host ${host} exposes the API beyond this machine: set OCB_TOKEN to a secret of your own (openssl rand -hex 32) first`,
    );
  }
  return { value: randomBytes(32).toString("base64url"), generated: true };
}
