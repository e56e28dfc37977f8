/**
 * The turns a session's runtime ends itself, `failed` for a reason of its own: a stall, a lost
 * connection, the server's death, the session's close, a held input the backend refused.
 * An abandoned turn's late native events are dropped, and while the backend stops an
 * abandoned run, held inputs wait (released earlier, one would join that run).
 */
import type { SessionBackend } from "../../backends/backend.js";
import type { CanonicalEvent, ConnectionState } from "../../events/canonical.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { ServerExit } from "../../server/server-handle.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import { RecentSet } from "../../util/recent-set.js";
import { connectionLostMessage } from "./connection-watch.js";
import { type RuntimeOrigin, runtimeEvent, serverExitMessage } from "./runtime-events.js";
import type { SessionState } from "./session-state.js";
import { type JoinedEnd, KNOWN_ENDED_TURNS, type SessionTurns } from "./session-turns.js";
import type { Stall } from "./watchdog.js";

/** Why the runtime ends a turn: where it says so from, its reason (the `error.kind` too), the message. */
interface RuntimeFailure {
  source: string;
  reason: string;
  message: string;
}

export interface RuntimeEndsOptions {
  /** What runs and waits: read to know what to end; the inputs ended wait no longer. */
  state: SessionState;
  /** The session's turns: a failed turn's text is what it has said so far. */
  turns: Pick<SessionTurns, "partialText">;
  logger: Logger;
  /** The session's backend (made after this): who says so, and who stops an abandoned run. */
  backend: () => Pick<SessionBackend, "kind" | "abandonTurn">;
  /** Hands an event the runtime originates to the session, like one from the backend. */
  dispatch: (event: CanonicalEvent) => void;
}

export class RuntimeEnds {
  /**
   * Turns ended here whose late native events are dropped. Only the latest are kept: the next
   * run waits until the backend stopped the abandoned one, so late events come from the last
   * few turns, and a long session does not grow with its stalls.
   */
  readonly #abandoned = new RecentSet<string>(KNOWN_ENDED_TURNS);
  readonly #options: RuntimeEndsOptions;

  constructor(options: RuntimeEndsOptions) {
    this.#options = options;
  }

  /** Whether `turnId` was abandoned: its native events are late, and dropped. */
  isAbandoned(turnId: string): boolean {
    return this.#abandoned.has(turnId);
  }

  /**
   * The watchdog fired: the running turn, or else the input that never started one, ends
   * `failed` (`stalled`), and the upstream run is stopped: the stop is returned (held inputs
   * wait for it), undefined when nothing ran.
   */
  stalled(stall: Stall): Promise<void> | undefined {
    const run = this.#options.state.run;
    const pendingInput = run.awaiting[0];
    const turnId =
      run.running ?? (pendingInput === undefined ? undefined : turnIdFor(pendingInput));
    if (turnId === undefined) return undefined;
    this.#options.logger.warn("turn stalled", {
      sessionId: this.#sessionId,
      turnId,
      kind: stall.kind,
    });
    const stop = this.#stopRun("stopping the stalled run failed");
    const neverStarted =
      run.running === undefined && pendingInput !== undefined ? [pendingInput] : [];
    this.#fail(run.running, neverStarted, true, {
      source: "watchdog",
      reason: "stalled",
      message: stall.hint,
    });
    return stop;
  }

  /**
   * The streams stayed away for the connection-lost bound: the running turn and the inputs
   * waiting to start end `failed` (`connection-lost`), and the upstream run is asked to stop.
   * The streams go on reconnecting; late events of these turns are dropped. Returns the stop
   * (held inputs wait for it), undefined when nothing ran.
   */
  connectionLost(state: ConnectionState): Promise<void> | undefined {
    const run = this.#options.state.run;
    if (!this.#options.state.running) return undefined;
    const message = connectionLostMessage(state);
    this.#options.logger.warn("connection lost; ending the turn", {
      sessionId: this.#sessionId,
      message,
    });
    const stop = this.#stopRun("stopping the run after a lost connection failed");
    this.#fail(run.running, run.awaiting, true, {
      source: "runtime.connection",
      reason: "connection-lost",
      message,
    });
    return stop;
  }

  /**
   * The server died: the running turn, the inputs waiting to start and the `held` ones end
   * `failed` (`server-exited`) with the exit and the server's last lines.
   */
  serverExited(held: readonly string[], exit: ServerExit): void {
    const run = this.#options.state.run;
    // It died with the server: held inputs need not wait for the stop.
    if (this.#options.state.running)
      void this.#options
        .backend()
        .abandonTurn()
        .catch(() => {});
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
  closed(held: readonly string[]): void {
    const run = this.#options.state.run;
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
    const { dispatch } = this.#options;
    const turnId = turnIdFor(inputId);
    const from = this.#origin;
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
    const { dispatch, logger } = this.#options;
    logger.info("an input went into another turn than its own; its turn ends with that one", {
      sessionId: this.#sessionId,
      turnId: turn.id,
      inputId,
      hostId,
    });
    const { usage: _counted, ...shared } = ended;
    dispatch(runtimeEvent(this.#origin, turn.id, "runtime.join", "turn.ended", shared));
  }

  /** An adopted session's turn ran on a backend that cannot replay what it missed. */
  bridgeRestarted(running: string): void {
    this.#fail(running, [], false, {
      source: "runtime.adopt",
      reason: "bridge-restarted",
      message: `the bridge restarted while this turn ran; the ${this.#origin.backend} backend cannot replay what it missed`,
    });
  }

  /**
   * An adopted turn ran in an OpenCode session that was lost since (the session went on in a
   * new one, `session.rehydrated`): nothing upstream will end it.
   */
  upstreamLost(running: string): void {
    this.#fail(running, [], false, {
      source: "runtime.rehydrate",
      reason: "upstream-lost",
      message: "the OpenCode session this turn ran in was lost; the session went on in a new one",
    });
  }

  get #sessionId(): string {
    return this.#options.state.sessionId;
  }

  /** Who originates the events the runtime adds. */
  get #origin(): RuntimeOrigin {
    return { sessionId: this.#sessionId, backend: this.#options.backend().kind };
  }

  /**
   * Asks the backend to stop the run given up on (`SessionBackend.abandonTurn`), the session
   * `stopping` meanwhile; `failed` is logged if it cannot. Resolves once it settled.
   */
  #stopRun(failed: string): Promise<void> {
    const { state, backend, logger } = this.#options;
    state.stopStarted();
    return backend()
      .abandonTurn()
      .catch((error: unknown) => logger.warn(failed, { sessionId: this.#sessionId, error }))
      .finally(() => state.stopSettled());
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
    for (const inputId of neverStarted) this.#options.state.forgetAwaiting(inputId);
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
    const { dispatch, turns } = this.#options;
    const { source, reason, message } = failure;
    const origin = this.#origin;
    if (neverStarted !== undefined) {
      dispatch(runtimeEvent(origin, turnId, source, "turn.started", { inputId: neverStarted }));
    }
    dispatch(
      runtimeEvent(origin, turnId, source, "turn.ended", {
        outcome: "failed",
        reason,
        error: { kind: reason, message },
        text: turns.partialText(turnId),
      }),
    );
  }
}
