/**
 * The state of a client's shared WebSocket, observable: `client.connection.state` now, and
 * `client.connection.onChange(cb)` for every change (a UI shows "reconnecting…" from it
 * instead of hanging on "working").
 */
export type SocketState =
  /** No subscription: no socket is open. */
  | "idle"
  | "connecting"
  | "connected"
  /** The socket broke; the next attempt waits for its backoff. */
  | "reconnecting"
  /** `client.close()` was called. */
  | "closed";

export interface ClientConnectionState {
  state: SocketState;
  /** Milliseconds since the epoch. */
  since: number;
  /** Failed attempts in a row (0 once connected). */
  attempt: number;
  /** Why the socket closed or the last attempt failed. */
  reason?: string;
}

export type ConnectionListener = (state: ClientConnectionState) => void;

/** What `client.connection` offers. */
export interface ConnectionObservable {
  readonly state: ClientConnectionState;
  /** Calls `listener` on every change; returns the function that stops it. */
  onChange(listener: ConnectionListener): () => void;
}

export class ConnectionStateCell implements ConnectionObservable {
  #state: ClientConnectionState = { state: "idle", since: Date.now(), attempt: 0 };
  readonly #listeners = new Set<ConnectionListener>();

  get state(): ClientConnectionState {
    return this.#state;
  }

  onChange(listener: ConnectionListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  set(state: SocketState, attempt: number, reason?: string): void {
    if (this.#state.state === state && this.#state.attempt === attempt) return;
    this.#state = {
      state,
      since: Date.now(),
      attempt,
      ...(reason !== undefined && { reason }),
    };
    for (const listener of [...this.#listeners]) {
      // A listener's bug must not stop the socket's state machine.
      try {
        listener(this.#state);
      } catch {}
    }
  }
}
