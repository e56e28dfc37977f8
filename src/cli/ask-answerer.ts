/**
 * How `ocb run` answers the asks of its turn: by `--approve` (scripts), by asking at the
 * terminal, or — when nobody can be asked — by rejecting them and saying so.
 */
import type { CanonicalEventOf } from "../events/canonical.js";
import type { Session } from "../runtime/session/session.js";
import { describeError } from "../util/describe-error.js";
import { AskPrompt, type AskPromptOptions } from "./ask-prompt.js";

export const APPROVE_MODES = ["all", "none"] as const;
/** `all` allows every permission ask once, `none` rejects it; questions are declined either way. */
export type ApproveMode = (typeof APPROVE_MODES)[number];

export type AskEvent = CanonicalEventOf<"permission.asked"> | CanonicalEventOf<"question.asked">;

export interface AskAnswererOptions {
  approve: ApproveMode | undefined;
  /** Where to ask a person (undefined: nobody can be asked, stdin is not a terminal). */
  terminal: AskPromptOptions | undefined;
  /** One line to the user, on stderr. */
  notice(line: string): void;
}

type Answering = Pick<Session, "replyPermission" | "answerQuestion" | "rejectQuestion">;

export class AskAnswerer {
  readonly #options: AskAnswererOptions;
  #prompt: AskPrompt | undefined;

  constructor(options: AskAnswererOptions) {
    this.#options = options;
  }

  /** True when asks are put to the person at the terminal (who then sees them in full). */
  get interactive(): boolean {
    return this.#options.approve === undefined && this.#options.terminal !== undefined;
  }

  /**
   * Decides on one ask and sends the answer. Resolves once it is sent (or could not be: the
   * error is reported and the turn goes on); an aborted `signal` (the turn ended) stops asking.
   */
  async answer(session: Answering, event: AskEvent, signal?: AbortSignal): Promise<void> {
    const { requestId } = event.data;
    let send: () => Promise<void>;
    try {
      if (event.type === "permission.asked") {
        const reply = await this.#permission(event.data, signal);
        // A refusal with a reason lets the model go on without the call on every backend
        // (without one, 1.18's /api stops the run).
        send = () =>
          session.replyPermission(
            requestId,
            reply,
            reply === "reject" ? { message: this.#refusal() } : {},
          );
      } else {
        const decision = await this.#question(event.data, signal);
        send =
          decision.reply === "answer"
            ? () => session.answerQuestion(requestId, decision.answers)
            : () => session.rejectQuestion(requestId);
      }
    } catch (error) {
      if (signal?.aborted) return; // the turn ended while we asked: nothing left to answer
      throw error;
    }
    try {
      await send();
    } catch (error) {
      this.#options.notice(`ocb: answering ask ${requestId} failed: ${describeError(error)}`);
    }
  }

  #refusal(): string {
    if (this.#options.approve === "none") return "refused by the user's --approve none";
    return this.interactive ? "refused by the user" : "refused: nobody was there to answer";
  }

  /** Stops reading the terminal. */
  close(): void {
    this.#prompt?.close();
    this.#prompt = undefined;
  }

  async #permission(
    ask: CanonicalEventOf<"permission.asked">["data"],
    signal: AbortSignal | undefined,
  ): Promise<"once" | "always" | "reject"> {
    const { approve } = this.#options;
    if (approve !== undefined) return approve === "all" ? "once" : "reject";
    const prompt = this.#terminal();
    if (prompt !== undefined) return prompt.permission(ask, signal);
    const what = [ask.permission, ...ask.patterns].join(" ");
    this.#options.notice(
      `ocb: rejected a permission ask (${what}): stdin is not a terminal, so nobody can answer it; ` +
        "pass --approve all to allow asks, or --approve none to reject them",
    );
    return "reject";
  }

  async #question(
    ask: CanonicalEventOf<"question.asked">["data"],
    signal: AbortSignal | undefined,
  ): ReturnType<AskPrompt["question"]> {
    if (this.#options.approve !== undefined) return { reply: "reject" };
    const prompt = this.#terminal();
    if (prompt !== undefined) return prompt.question(ask, signal);
    this.#options.notice(
      "ocb: declined a question: stdin is not a terminal, so nobody can answer it; " +
        "pass --approve all or --approve none to choose how asks are answered (questions are declined either way)",
    );
    return { reply: "reject" };
  }

  /** The terminal prompt, opened at the first ask (reading stdin before that would hold it). */
  #terminal(): AskPrompt | undefined {
    const terminal = this.#options.terminal;
    if (terminal === undefined) return undefined;
    this.#prompt ??= new AskPrompt(terminal);
    return this.#prompt;
  }
}
