/**
 * A prompt whose answer was lost (the connection broke off, or the request timed out) may
 * have been admitted or not. Where the backend names its inputs with ids the server admits
 * once (`idempotentInputId`), the prompt is sent again with the same id once the server can
 * take it: admitted before, the repeat is answered with that admission; not admitted, it is
 * admitted now. Either way the send succeeds, and never admits its input twice. When every
 * attempt is lost, the send fails saying that the outcome is unknown, and with which input id.
 */
import type { PromptRequest, SessionBackend } from "../../backends/backend.js";
import { ConnectionError, SendOutcomeUnknownError, TimeoutError } from "../../errors.js";
import { turnIdFor } from "../../events/turn-state.js";
import { sleep } from "../../util/abort.js";

/**
 * Lost answers of one prompt before its outcome counts as unknown. An attempt after which the
 * server was away (a kill cut it; the send then waited for the restart) does not count: a
 * send waits for the restarts, however many, as long as the supervisor restarts the server.
 */
export const PROMPT_ATTEMPTS = 4;

/** Sends of one prompt in all, restarts or not: a bound in case the streams flap. */
const MAX_SENDS = 20;

/**
 * The pause before the first resend, doubled for each next one. A SIGKILLed server closes its
 * sockets a moment before its death shows (its exit heard, its process a zombie): without the
 * pause, `ready` would find it still running and the attempts would be spent in that moment.
 */
const RESEND_DELAY_MS = 250;

export interface PromptResendContext {
  /**
   * Waits until the server can take the prompt again (its restart after a crash); true when
   * the session's streams had been away and came back meanwhile.
   */
  ready: () => Promise<boolean>;
  /** Whether the session's stream showed the input's admission already. */
  admitted: (inputId: string) => boolean;
  signal?: AbortSignal | undefined;
}

/** `backend.prompt(request)`, sent again with the same id while its answer is lost. */
export async function promptWithResend(
  backend: SessionBackend,
  request: PromptRequest,
  context: PromptResendContext,
): Promise<{ inputId: string }> {
  const inputId = backend.idempotentInputId?.();
  if (inputId === undefined) return await backend.prompt(request);
  let lost: ConnectionError | TimeoutError | undefined;
  /** Whether an attempt may have reached the server (a refused connection did not). */
  let mayHaveReached = false;
  let counted = 0;
  let sends = 0;
  while (counted < PROMPT_ATTEMPTS && sends < MAX_SENDS) {
    try {
      if (sends > 0) {
        const pause = RESEND_DELAY_MS * 2 ** Math.min(counted - 1, 2);
        await sleep(pause, context.signal, "sending a prompt again");
        if (await context.ready()) counted -= 1; // the server was away: that loss is not counted
      }
      sends += 1;
      return await backend.prompt({ ...request, inputId });
    } catch (error) {
      if (!mayHaveReached && !isLostAnswer(error)) throw error; // answered, or never sent
      if (!isLostAnswer(error)) throw unknown(inputId, sends, lost, error);
      lost = error;
      mayHaveReached ||= !wasRefused(error);
      counted += 1;
    }
    if (context.admitted(inputId)) return { inputId };
  }
  // Refused every time: the input was never sent, and that is known.
  if (!mayHaveReached && lost !== undefined) throw lost;
  throw unknown(inputId, sends, lost, lost);
}

/** Whether the connection was refused: the request never left this process. */
function wasRefused(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as NodeJS.ErrnoException).code === "ECONNREFUSED") return true;
  }
  return false;
}

/** A failure after which the server may have admitted the prompt. */
function isLostAnswer(error: unknown): error is ConnectionError | TimeoutError {
  return error instanceof ConnectionError || error instanceof TimeoutError;
}

function unknown(
  inputId: string,
  attempts: number,
  lost: ConnectionError | TimeoutError | undefined,
  cause: unknown,
): SendOutcomeUnknownError {
  const url = lost instanceof ConnectionError ? lost.url : "the server";
  return new SendOutcomeUnknownError(
    url,
    { inputId, turnId: turnIdFor(inputId), attempts },
    { cause },
  );
}
