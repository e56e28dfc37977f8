/**
 * A prompt whose answer was lost (the connection broke off, or the request timed out) may
 * have been admitted or not. Where the backend names its inputs with ids the server admits
 * once (`idempotentInputId`), the prompt is sent again with the same id once the server can
 * take it: admitted before, the repeat is answered with that admission; not admitted, it is
 * admitted now. Either way the send succeeds, and never admits its input twice. When every
 * attempt is lost, the send fails saying that the outcome is unknown, and with which input id.
 */
import type { PromptRequest, SessionBackend } from "../backends/backend.js";
import { ConnectionError, SendOutcomeUnknownError, TimeoutError } from "../errors.js";
import { turnIdFor } from "../events/turn-state.js";
import { sleep } from "../util/abort.js";

/** Sends of one prompt before its outcome counts as unknown (each after the server is back). */
export const PROMPT_ATTEMPTS = 4;

/**
 * The pause before the first resend, doubled for each next one. A SIGKILLed server closes its
 * sockets a moment before its death shows (its exit heard, its process a zombie): without the
 * pause, `ready` would find it still running and the attempts would be spent in that moment.
 */
const RESEND_DELAY_MS = 250;

export interface PromptResendContext {
  /** Waits until the server can take the prompt again (its restart after a crash). */
  ready: () => Promise<void>;
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
  for (let attempt = 1; attempt <= PROMPT_ATTEMPTS; attempt++) {
    try {
      if (attempt > 1) {
        await sleep(RESEND_DELAY_MS * 2 ** (attempt - 2), context.signal, "sending a prompt again");
        await context.ready();
      }
      return await backend.prompt({ ...request, inputId });
    } catch (error) {
      if (!mayHaveReached && !isLostAnswer(error)) throw error; // answered, or never sent
      if (!isLostAnswer(error)) throw unknown(inputId, attempt, lost, error);
      lost = error;
      mayHaveReached ||= !wasRefused(error);
    }
    if (context.admitted(inputId)) return { inputId };
  }
  // Refused every time: the input was never sent, and that is known.
  if (!mayHaveReached && lost !== undefined) throw lost;
  throw unknown(inputId, PROMPT_ATTEMPTS, lost, lost);
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
