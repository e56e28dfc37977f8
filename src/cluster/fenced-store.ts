/**
 * The store as a cluster's driver writes it: every append goes out fenced with the lease token
 * this sidecar holds for the session (`PostgresStore.appendFenced`), so that a driver that lost
 * its lease (a stall, a partition) cannot write after the sidecar that took the session over.
 * An append refused by its fence, or one for a session whose lease this sidecar does not hold,
 * stores nothing and is reported (`onRefused`): the sidecar stops driving that session.
 * Everything else goes to the store as it is.
 */
import { OpencodeBridgeError } from "../errors.js";
import { FencedAppendError, type PostgresStore } from "../store/postgres-store.js";
import type { Store } from "../store/store.js";

/** An append for a session this sidecar holds no lease of: nothing is stored. */
export class NotDrivingError extends OpencodeBridgeError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super(
      `session ${sessionId}: this sidecar holds no lease of it (another sidecar drives it, or ` +
        "its lease was lost); the append was not stored",
    );
    this.sessionId = sessionId;
  }
}

export interface FenceSource {
  readonly holderId: string;
  /** The token of the lease held on `sessionId`, undefined when none is. */
  tokenOf(sessionId: string): number | undefined;
}

/** `store` with every append fenced by `leases`; a refusal is told to `onRefused`, then thrown. */
export function fencedStore(
  store: PostgresStore,
  leases: FenceSource,
  onRefused: (sessionId: string, error: OpencodeBridgeError) => void,
): Store {
  const append: Store["append"] = async (sessionId, events, cursor) => {
    const token = leases.tokenOf(sessionId);
    if (token === undefined) {
      const error = new NotDrivingError(sessionId);
      onRefused(sessionId, error);
      throw error;
    }
    try {
      return await store.appendFenced(
        { holder: leases.holderId, token },
        sessionId,
        events,
        cursor,
      );
    } catch (error) {
      if (error instanceof FencedAppendError) onRefused(sessionId, error);
      throw error;
    }
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === "append") return append;
      // Bound to the store itself: its methods use private fields, which a proxy has not.
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
