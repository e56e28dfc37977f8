/**
 * The turns a session's runtime ends itself, `failed` for a reason of its own: a stall, a lost
 * connection, the server's death, the session's close, a held input the backend refused.
 * An abandoned turn's late native events are dropped, and while the backend stops an
 * abandoned run, held inputs wait (released earlier, one would join that run).
 */
import type { CanonicalEvent, ConnectionState } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { ServerExit } from "../../server/server-handle.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { RecentSet } from "../../util/recent-set.js";
import { connectionLostMessage } from "./connection-watch.js";
import { isRunning, type RunState } from "./run-state.js";
import { type RuntimeOrigin, runtimeEvent, serverExitMessage } from "./runtime-events.js";
import { type JoinedEnd, KNOWN_ENDED_TURNS } from "./session-turns.js";
import type { Stall } from "./watchdog.js";

/** Why the runtime ends a turn: where it says so from, its reason (the `error.kind` too), the message. */
interface RuntimeFailure {
  source: string;
  reason: string;
  message: string;
}

export interface RuntimeEndsOptions {
  /** Who says so (read when an event is made: the backend is made after this). */
  origin: () => RuntimeOrigin;
  logger: Logger;
  /** Hands an event the runtime originates to the session, like one from the backend. */
  dispatch: (event: CanonicalEvent) => void;
  /** What a turn has said so far: a failed turn's text. */
  partialText: (turnId: string) => string;
  /** An input waits no longer for a turn to take it. */
  forgetAwaiting: (inputId: string) => void;
  /** Stops the upstream run (`SessionBackend.abandonTurn`). */
  stopRun: () => Promise<void>;
  /** The upstream run stopped, or failed to: held inputs may go. */
  runStopped: () => void;
}

export class RuntimeEnds {
  /**
   * Turns ended here whose late native events are dropped. Only the latest are kept: the next
   * run waits until the backend stopped the abandoned one, so late events come from the last
   * few turns, and a long session does not grow with its stalls.
   */
  readonly #abandoned = new RecentSet<string>(KNOWN_ENDED_TURNS);
  #stopping: Promise<void> | undefined;
  readonly #options: RuntimeEndsOptions;

  constructor(options: RuntimeEndsOptions) {
    this.#options = options;
  }

  /** Whether `turnId` was abandoned: its native events are late, and dropped. */
  isAbandoned(turnId: string): boolean {
    return this.#abandoned.has(turnId);
  }

  /** The backend is stopping an abandoned run: held inputs wait for it. */
  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /**
   * The watchdog fired: the running turn, or else the input that never started one, ends
   * `failed` (`stalled`), and the upstream run is stopped.
   */
  stalled(run: RunState, stall: Stall): void {
    const pendingInput = run.awaiting[0];
    const turnId =
      run.running ?? (pendingInput === undefined ? undefined : turnIdFor(pendingInput));
    if (turnId === undefined) return;
    this.#options.logger.warn("turn stalled", {
      sessionId: this.#sessionId,
      turnId,
      kind: stall.kind,
    });
    this.#stopRun("stopping the stalled run failed");
    const neverStarted =
      run.running === undefined && pendingInput !== undefined ? [pendingInput] : [];
    this.#fail(run.running, neverStarted, true, {
      source: "watchdog",
      reason: "stalled",
      message: stall.hint,
    });
  }

  /**
   * The streams stayed away for the connection-lost bound: the running turn and the inputs
   * waiting to start end `failed` (`connection-lost`), and the upstream run is asked to stop.
   * The streams go on reconnecting; late events of these turns are dropped.
   */
  connectionLost(run: RunState, state: ConnectionState): void {
    if (!isRunning(run)) return;
    const message = connectionLostMessage(state);
    this.#options.logger.warn("connection lost; ending the turn", {
      sessionId: this.#sessionId,
      message,
    });
    this.#stopRun("stopping the run after a lost connection failed");
    this.#fail(run.running, run.awaiting, true, {
      source: "runtime.connection",
      reason: "connection-lost",
      message,
    });
  }

  /**
   * The server died: the running turn, the inputs waiting to start and the `held` ones end
   * `failed` (`server-exited`) with the exit and the server's last lines.
   */
  serverExited(run: RunState, held: readonly string[], exit: ServerExit): void {
    if (isRunning(run)) void this.#options.stopRun().catch(() => {}); // it died with the server
    this.#fail(run.running, [...run.awaiting, ...held], true, {
      source: "server.exit",
      reason: "server-exited",
      message: serverExitMessage(exit),
    });
  }

  /**
   * The session closed: the running turn, which nobody follows any more, and the inputs that
   * never ran (`held` too) end `failed` (`session-closed`).
   */
  closed(run: RunState, held: readonly string[]): void {
    this.#fail(run.running, [...run.awaiting, ...held], false, {
      source: "runtime.close",
      reason: "session-closed",
      message: "the session was closed before the turn ended; it may go on upstream",
    });
  }

  /**
   * The session was detached (`Bridge.detach()`): the running turn and inputs already sent
   * are left upstream for a successor to adopt, untouched; only inputs the runtime held back
   * (never sent, so no successor can know of them) end `failed` (`session-closed`).
   */
  detached(held: readonly string[]): void {
    this.#fail(undefined, held, false, {
      source: "runtime.close",
      reason: "session-closed",
      message: "the session was detached before this held input was sent; send it again",
    });
  }

  /** The backend refused a held input: its turn starts and fails, so whoever waits on it hears. */
  sendFailed(inputId: string, error: unknown): void {
    this.#fail(undefined, [inputId], false, {
      source: "runtime.queue",
      reason: "send-failed",
      message: describeError(error),
    });
  }

  /**
   * A held input was taken back before it was sent (`Session.cancelInput`): `input.cancelled`,
   * then its turn's one `turn.ended` (`interrupted`, `cancelled`), so whoever holds the Turn
   * hears. No `turn.started`: the turn never ran, and another one usually runs meanwhile.
   */
  cancelled(inputId: string): void {
    const { dispatch, origin } = this.#options;
    const turnId = turnIdFor(inputId);
    const from = origin();
    const source = "runtime.queue";
    dispatch(
      runtimeEvent(from, turnId, source, "input.cancelled", { inputId, reason: "cancelled" }),
    );
    dispatch(
      runtimeEvent(from, turnId, source, "turn.ended", {
        outcome: "interrupted",
        reason: "cancelled",
        error: { kind: "cancelled", message: "removed from the queue before it was sent" },
        text: "",
      }),
    );
  }

  /**
   * A turn promised to an input that another turn took (it never started, and never will)
   * ends as that turn ended, once: no `turn.started` (the other turn ran meanwhile, and is left
   * as it is) and no usage (the other turn's end counts it). `input.delivered` names the turn
   * that took the input.
   */
  joined({ turn, inputId, hostId, ended }: JoinedEnd): void {
    const { dispatch, origin, logger } = this.#options;
    logger.info("an input went into another turn than its own; its turn ends with that one", {
      sessionId: this.#sessionId,
      turnId: turn.id,
      inputId,
      hostId,
    });
    const { usage: _counted, ...shared } = ended;
    dispatch(runtimeEvent(origin(), turn.id, "runtime.join", "turn.ended", shared));
  }

  /** An adopted session's turn ran on a backend that cannot replay what it missed. */
  bridgeRestarted(running: string): void {
    this.#fail(running, [], false, {
      source: "runtime.adopt",
      reason: "bridge-restarted",
      message: `the bridge restarted while this turn ran; the ${this.#options.origin().backend} backend cannot replay what it missed`,
    });
  }

  get #sessionId(): string {
    return this.#options.origin().sessionId;
  }

  /** Asks the backend to stop the run given up on; `failed` is logged if it cannot. */
  #stopRun(failed: string): void {
    const { stopRun, runStopped, logger } = this.#options;
    this.#stopping = stopRun()
      .catch((error: unknown) => logger.warn(failed, { sessionId: this.#sessionId, error }))
      .finally(() => {
        this.#stopping = undefined;
        runStopped();
      });
  }

  /**
   * Ends the running turn and the turns of inputs that never started one (they wait no
   * longer); `abandon`: late native events of these turns are dropped from now on.
   */
  #fail(
    running: string | undefined,
    neverStarted: readonly string[],
    abandon: boolean,
    failure: RuntimeFailure,
  ): void {
    for (const inputId of neverStarted) this.#options.forgetAwaiting(inputId);
    if (running !== undefined) {
      if (abandon) this.#abandoned.add(running);
      this.#failTurn(running, failure);
    }
    for (const inputId of neverStarted) {
      const turnId = turnIdFor(inputId);
      if (turnId === running) continue;
      if (abandon) this.#abandoned.add(turnId);
      this.#failTurn(turnId, failure, inputId);
    }
  }

  /**
   * Ends a turn `failed`. An input that never started a turn (`neverStarted`) gets one opened
   * first, so that exactly one start meets one end.
   */
  #failTurn(turnId: string, failure: RuntimeFailure, neverStarted?: string): void {
    const { dispatch, partialText } = this.#options;
    const { source, reason, message } = failure;
    const origin = this.#options.origin();
    if (neverStarted !== undefined) {
      dispatch(runtimeEvent(origin, turnId, source, "turn.started", { inputId: neverStarted }));
    }
    dispatch(
      runtimeEvent(origin, turnId, source, "turn.ended", {
        outcome: "failed",
        reason,
        error: { kind: reason, message },
        text: partialText(turnId),
      }),
    );
  }
}
