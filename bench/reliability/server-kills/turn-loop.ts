/**
 * One session's turns, back to back, until told to stop: each send and how its turn ended,
 * with the number of server kills made before it was sent (so that the first send after a
 * kill can be told apart).
 */
import { SendOutcomeUnknownError } from "../../../src/errors.js";
import type { Session } from "../../../src/runtime/session/session.js";
import type { TurnResult } from "../../../src/runtime/session/turn.js";
import { describeError } from "../../../src/util/describe-error.js";
import type { SeededRandom } from "../faults/seeded-random.js";

/** A turn that has not ended this long after its send counts as never ended. */
export const TURN_END_BOUND_MS = 120_000;

export interface SentTurn {
  session: string;
  /** Undefined when the send itself failed. */
  turnId?: string;
  /** The send failed with its outcome unknown: the turn its input has if it was admitted. */
  unknownTurnId?: string;
  /** Kills made before the send. */
  killsBefore: number;
  /** Kills made by the time it ended. */
  killsAfter?: number;
  result?: TurnResult;
  /** The send threw, or the turn did not end within the bound. */
  problem?: string;
}

export interface TurnLoopOptions {
  random: SeededRandom;
  /** The number of kills so far. */
  kills: () => number;
  /** No turn is sent once it fired; the one running is awaited. */
  stop: AbortSignal;
  /** Told of each ended turn. */
  onTurn?: (turn: SentTurn) => void;
}

/** A short turn of the scripted model: a few paced chunks, so that kills land mid-turn too. */
function turnPrompt(random: SeededRandom): string {
  return `[[slow ${random.between(4, 16)} 50]]`;
}

async function ended(done: Promise<TurnResult>): Promise<TurnResult | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), TURN_END_BOUND_MS);
  });
  try {
    return await Promise.race([done, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends turns on `session` until `stop` fires, one after the other; resolves with them all. */
export async function runTurnLoop(session: Session, options: TurnLoopOptions): Promise<SentTurn[]> {
  const turns: SentTurn[] = [];
  while (!options.stop.aborted) {
    const sent: SentTurn = { session: session.id, killsBefore: options.kills() };
    turns.push(sent);
    try {
      const turn = await session.send(turnPrompt(options.random), { delivery: "queue" });
      sent.turnId = turn.id;
      const result = await ended(turn.done());
      if (result === undefined) sent.problem = `not ended within ${TURN_END_BOUND_MS} ms`;
      else sent.result = result;
    } catch (error) {
      if (error instanceof SendOutcomeUnknownError) sent.unknownTurnId = error.turnId;
      sent.problem = `the send failed: ${describeError(error)}`;
    }
    sent.killsAfter = options.kills();
    options.onTurn?.(sent);
  }
  return turns;
}
