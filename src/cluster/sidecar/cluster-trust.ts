/**
 * How the sidecars of a cluster trust each other: a secret of their own, which is not the
 * clients' token (a client's token does not make it a sidecar, and a leaked cluster secret
 * does not open the API to a client), sent only to peer addresses that pass
 * `checkPeerAddress`, over https verified against the operator's CA when one is given.
 * An address refused is said once at warn (a row of the `leases` table is wrong, or was
 * written by someone who should not), never with the secret.
 */

import type { Logger } from "../../util/logger.js";
import { checkPeerAddress } from "../peer-address.js";

/** What `startSidecar` needs to join a cluster's calls between sidecars. */
export interface ClusterTrustOptions {
  /**
   * The secret every sidecar of the cluster presents to the others (`OCB_CLUSTER_SECRET`):
   * at least 16 characters without spaces, and not the clients' token.
   */
  secret: string;
  /**
   * PEM certificate(s) of the CA that signed the sidecars' certificates: https peers are
   * verified against these only (default: Node's public CAs).
   */
  ca?: string | undefined;
  /** Send the secret over plain http to peers beyond loopback (a network nobody can listen on). */
  insecureHttp?: boolean | undefined;
}

export class ClusterTrust {
  readonly secret: string;
  readonly ca: string | undefined;
  readonly insecureHttp: boolean;
  readonly #logger: Logger;
  readonly #refused = new Set<string>();

  constructor(options: ClusterTrustOptions, logger: Logger) {
    this.secret = options.secret;
    this.ca = options.ca;
    this.insecureHttp = options.insecureHttp === true;
    this.#logger = logger;
  }

  /**
   * The origin to call the sidecar at `address` (its lease's) with the secret, or undefined
   * when the address is refused (logged at warn, once per address).
   */
  peerOrigin(address: string, holder: string): string | undefined {
    const check = checkPeerAddress(address, { insecureHttp: this.insecureHttp });
    if (check.ok) return check.origin;
    if (!this.#refused.has(address)) {
      this.#refused.add(address);
      this.#logger.warn(
        `refused to call sidecar ${holder} of the cluster at the address its lease names: ` +
          `${check.problem}; its sessions' commands and deltas are not forwarded to it ` +
          "(check the leases table: only sidecars should write it)",
        { holder, address },
      );
    }
    return undefined;
  }
}
