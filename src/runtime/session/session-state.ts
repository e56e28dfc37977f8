/**
 * A session's run state in one place: what runs (followed from its events, `run-state.ts`),
 * the inputs sent upstream that wait for their turn, whether the backend is stopping a run
 * the runtime gave up on, and whether the session is closed. The session's parts (the way in,
 * the ends the runtime makes itself, the watch on a busy session) read it and change it through
 * the named transitions below; a transition that is not allowed throws here, nowhere else.
 *
 * Each change wakes whoever waits for one (`until`): a send waits for its input's admission.
 */
import { UsageError } from "../../errors.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { ChangeNotifier } from "../../util/change-notifier.js";
import {
  initialRunState,
  isRunning,
  type RunState,
  reduceRunState,
  withAwaiting,
  withoutAwaiting,
} from "./run-state.js";

/**
 * Where a session stands, most telling first: `closed` (nobody follows it any more),
 * `stopping` (the backend stops a run the runtime ended), `running` (a turn runs), `awaiting`
 * (an input sent upstream waits for its turn), `idle`.
 */
export type SessionPhase = "closed" | "stopping" | "running" | "awaiting" | "idle";

export class SessionState {
  readonly sessionId: string;
  #run: RunState = initialRunState;
  #closed = false;
  /** Stops of abandoned runs under way (a stall, then a lost connection, may overlap). */
  #stops = 0;
  readonly #changes = new ChangeNotifier();

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** What runs now: the turn, its step and tools, the inputs waiting for a turn. */
  get run(): RunState {
    return this.#run;
  }

  get phase(): SessionPhase {
    if (this.#closed) return "closed";
    if (this.#stops > 0) return "stopping";
    if (this.#run.running !== undefined) return "running";
    return this.#run.awaiting.length > 0 ? "awaiting" : "idle";
  }

  /** A turn runs or an input waits for one: the session is watched for stalls. */
  get running(): boolean {
    return isRunning(this.#run);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The backend is stopping a run the runtime ended: nothing new may go upstream yet. */
  get stopping(): boolean {
    return this.#stops > 0;
  }

  /** Whether the next held input may go upstream: open, nothing runs or waits or stops. */
  get free(): boolean {
    return !this.#closed && !this.stopping && !this.running;
  }

  /**
   * An event the session took: what runs follows from it. Also once closed: the close's own
   * ends (and late events of what it ended) still pass through here.
   */
  track(event: CanonicalEvent): void {
    this.#run = reduceRunState(this.#run, event);
    this.#changes.notify();
  }

  /**
   * `inputId` went upstream and waits for a turn to take it (once: a second call changes
   * nothing). Also once closed: a send under way at the close still names its input, so that
   * the close ends its turn.
   */
  awaiting(inputId: string): void {
    this.#run = withAwaiting(this.#run, inputId);
  }

  /** `inputId` waits no longer: the runtime ended its turn itself (nothing if it did not wait). */
  forgetAwaiting(inputId: string): void {
    this.#run = withoutAwaiting(this.#run, inputId);
  }

  /**
   * The backend starts stopping a run the runtime ended. Another stop may start before the
   * first settles (a stall, then a lost connection): the session stops until both settled.
   */
  stopStarted(): void {
    if (this.#closed) throw new UsageError(`session ${this.sessionId} is closed: nothing to stop`);
    this.#stops += 1;
  }

  /** The backend stopped a run, or failed to: once none is left, inputs may go upstream again. */
  stopSettled(): void {
    if (this.#stops === 0) throw new Error(`session ${this.sessionId}: no stop was under way`);
    this.#stops -= 1;
    this.#changes.notify();
  }

  /** Open → closed; false (and nothing changes) when it was closed already. */
  close(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#changes.notify();
    return true;
  }

  /** Refuses what a closed session cannot do (send, answer, revert, cancel). */
  throwIfClosed(): void {
    if (this.#closed) {
      throw new UsageError(`session ${this.sessionId} is closed; open it again to send`);
    }
  }

  /**
   * Waits until `condition()` holds, re-checked at each change of this state, for at most
   * `timeoutMs`: true when it holds, false past the bound (`ChangeNotifier.until`).
   */
  until(
    condition: () => boolean,
    options: { what: string; timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<boolean> {
    return this.#changes.until(condition, options);
  }
}
