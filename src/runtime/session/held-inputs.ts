/**
 * The runtime's queue, for a backend that has none: inputs sent while the session was busy
 * are held back, in order, and handed to the backend one at a time once it is free (no turn
 * runs, none waits to start, no abandoned run is being stopped).
 */
import type { Input } from "./input.js";

/** A held input: its id is minted by the runtime; the caller's signal was for the send only. */
export interface HeldInput {
  inputId: string;
  input: Omit<Input, "signal">;
}

export interface HeldInputsOptions {
  /** Whether the backend may take the next input now. */
  free: () => boolean;
  /**
   * Hands a held input to the backend (the session counts it as waiting to start from the
   * call on); resolves once the backend took it.
   */
  send: (held: HeldInput) => Promise<unknown>;
  /** The backend refused a held input: nothing else will end its turn. */
  failed: (held: HeldInput, error: unknown) => void;
}

export class HeldInputs {
  /** Oldest (next) first. */
  readonly #queue: HeldInput[] = [];
  /** A held input is being handed to the backend: the next waits for that to settle. */
  #releasing = false;
  readonly #options: HeldInputsOptions;

  constructor(options: HeldInputsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#queue.length;
  }

  /** Holds an input: at the back of the queue, or at its front (it supersedes what waits). */
  hold(held: HeldInput, where: "front" | "back"): void {
    if (where === "front") this.#queue.unshift(held);
    else this.#queue.push(held);
  }

  /** Takes `inputId` out of the queue (it will never be sent); undefined when it is not held. */
  take(inputId: string): HeldInput | undefined {
    const index = this.#queue.findIndex((held) => held.inputId === inputId);
    return index < 0 ? undefined : this.#queue.splice(index, 1)[0];
  }

  /** Empties the queue: these inputs will never be sent (the session closed, the server died). */
  takeAll(): HeldInput[] {
    return this.#queue.splice(0);
  }

  /**
   * Hands the next held input to the backend if it is free and no other release is under way;
   * once that send settled (taken or refused), the one after is tried the same way.
   */
  release(): void {
    if (this.#releasing || !this.#options.free()) return;
    const next = this.#queue.shift();
    if (next === undefined) return;
    this.#releasing = true;
    void this.#options
      .send(next)
      .catch((error: unknown) => this.#options.failed(next, error))
      .finally(() => {
        this.#releasing = false;
        this.release();
      });
  }
}
