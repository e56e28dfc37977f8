/**
 * Whether `host` names this machine's loopback only: `localhost`, `127.x.y.z` or `::1` (with
 * or without brackets, as `URL.hostname` and `--host` spell it). Binding to anything else
 * exposes a server beyond this machine; sending a secret to anything else crosses a network.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || /^127\.\d+\.\d+\.\d+$/.test(name);
}
