/**
 * The real client with some of its methods stood in for (the landing page's send, which makes
 * the session first; a first send that titles its session). The composer takes a client and
 * calls it; this keeps the composer unaware of either.
 */
import type { BridgeClient } from "opencode-bridge/client";

export function clientWith(client: BridgeClient, overrides: Partial<BridgeClient>): BridgeClient {
  return new Proxy(client, {
    get(target, name) {
      if (Object.hasOwn(overrides, name)) return overrides[name as keyof BridgeClient];
      const value: unknown = Reflect.get(target, name, target);
      // Bound to the real client: its methods reach its private fields.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
