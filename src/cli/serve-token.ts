/** The access token of `ocb serve`: chosen by the user (`OCB_TOKEN`) or generated. */
import { randomBytes } from "node:crypto";
import { UsageError } from "../errors.js";
import { weakSecretProblem } from "../sidecar/secret-rules.js";
import { isLoopbackHost } from "../sidecar/security.js";

/** `OCB_TOKEN`, or a generated one (loopback only: on the network a token must be chosen). */
export function chooseToken(
  host: string,
  given: string | undefined,
): { value: string; generated: boolean } {
  if (given !== undefined && given !== "") {
    const weak = weakSecretProblem("OCB_TOKEN", given);
    if (weak !== undefined) throw new UsageError(weak);
    return { value: given, generated: false };
  }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `--host ${host} exposes the API beyond this machine: set OCB_TOKEN to a secret of your own (openssl rand -hex 32) first`,
    );
  }
  return { value: randomBytes(32).toString("base64url"), generated: true };
}
