/**
 * Which addresses a sidecar may call another sidecar of its cluster at. The address comes from
 * a `leases` row, that is from the database: whoever can write it could name their own
 * listener and collect the cluster secret a call carries. So an address is used only when it
 * is a plain origin (`http(s)://host[:port]`, no credentials, path, query or fragment that
 * could turn a call into something else) and either https (the peer's certificate is then
 * verified) or http to this machine's loopback; plain http across the network only when the
 * operator opted in (`--cluster-insecure-http`: a network where nobody can listen in).
 */
import { isLoopbackHost } from "../util/loopback-host.js";

/** How far an operator lets the secret travel. */
export interface PeerAddressPolicy {
  /** Send the secret over plain http to hosts other than loopback (the network is trusted). */
  insecureHttp: boolean;
}

/** The address as a URL to call, or why it is refused (for a log line: it holds no secret). */
export type PeerAddressCheck = { ok: true; origin: string } | { ok: false; problem: string };

/** Checks `address` (a sidecar's `--cluster-address`, as a lease row has it) against `policy`. */
export function checkPeerAddress(address: string, policy: PeerAddressPolicy): PeerAddressCheck {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return refused("it is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return refused(`its scheme is ${url.protocol}, not http: or https:`);
  }
  if (url.username !== "" || url.password !== "") return refused("it carries credentials");
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return refused("it is not a bare origin (it has a path, query or fragment)");
  }
  if (url.protocol === "http:" && !policy.insecureHttp && !isLoopbackHost(url.hostname)) {
    return refused(
      "it is plain http to another machine, where the cluster secret could be read on the way: " +
        "serve the sidecars over https (--tls-cert, --tls-key), or pass --cluster-insecure-http " +
        "on a network nobody else can listen on",
    );
  }
  return { ok: true, origin: url.origin };
}

function refused(problem: string): PeerAddressCheck {
  return { ok: false, problem };
}
