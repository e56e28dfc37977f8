/**
 * How `ocb run` shows a turn in a terminal: text as it arrives, one line per tool call and
 * result, and usage at the end. Deltas may be missed (or arrive after the whole text), so the
 * printer completes each text part from its `text.ended`.
 */
import type { CanonicalEvent, ConnectionState, Usage } from "../events/canonical.js";
import { streamedText } from "../events/streamed-so-far.js";
import { paint } from "./ansi.js";

export interface Output {
  write(text: string): void;
}

export class TurnPrinter {
  readonly #out: Output;
  /** What has been printed of each text part. */
  readonly #printed = new Map<string, string>();
  readonly #tools = new Map<string, string>();
  #atLineStart = true;
  readonly #color: boolean;
  /** An outage is under way (a `connected` after it is a reconnection, not the first state). */
  #reconnecting = false;

  constructor(out: Output, options: { color?: boolean } = {}) {
    this.#out = out;
    this.#color = options.color ?? false;
  }

  print(event: CanonicalEvent): void {
    switch (event.type) {
      case "text.delta": {
        // A catch-up delta (a follow that joined or resumed mid-part) is the whole text so
        // far: only what was not printed yet is.
        const before = this.#printed.get(event.data.partId) ?? "";
        const text = streamedText(before, event);
        this.#printed.set(event.data.partId, text);
        this.#text(text.startsWith(before) ? text.slice(before.length) : `\n${text}`);
        return;
      }
      case "text.ended": {
        const before = this.#printed.get(event.data.partId) ?? "";
        const rest = event.data.text.startsWith(before)
          ? event.data.text.slice(before.length)
          : `\n${event.data.text}`;
        this.#printed.set(event.data.partId, event.data.text);
        this.#text(rest);
        this.#newline();
        return;
      }
      case "reasoning.ended":
        this.#line(`(thinking) ${event.data.text}`);
        return;
      case "tool.called":
        this.#tools.set(event.data.callId, event.data.tool);
        this.#line(`→ ${event.data.tool} ${JSON.stringify(event.data.input)}`);
        return;
      case "tool.succeeded":
        this.#line(
          `← ${this.#tools.get(event.data.callId) ?? "tool"}: ${oneLine(event.data.output)}`,
        );
        return;
      case "tool.failed":
        this.#line(
          `✗ ${this.#tools.get(event.data.callId) ?? "tool"} failed: ${oneLine(event.data.error.message)}`,
        );
        return;
      case "permission.asked": {
        const { permission, patterns, childSessionId } = event.data;
        const what = patterns.length > 0 ? `: ${oneLine(patterns.join(", "))}` : "";
        const who = childSessionId === undefined ? "" : ` (subagent ${childSessionId})`;
        this.#line(`? permission ${permission}${what}${who}, waiting for an answer`);
        return;
      }
      case "permission.replied": {
        const reply = event.data.reply;
        this.#line(reply === "reject" ? "✗ permission rejected" : `✓ permission allowed ${reply}`);
        return;
      }
      case "question.asked": {
        const [first, ...more] = event.data.questions.map(questionText);
        const rest = more.length > 0 ? ` (+${more.length} more)` : "";
        this.#line(`? question: ${oneLine(first ?? "")}${rest}, waiting for an answer`);
        return;
      }
      case "question.replied": {
        const answers = (event.data.answers ?? []).map(answerText).filter(Boolean);
        this.#line(
          `✓ question answered${answers.length > 0 ? `: ${oneLine(answers.join("; "))}` : ""}`,
        );
        return;
      }
      case "question.rejected":
        this.#line("✗ question declined");
        return;
      case "retry":
        this.#line(`(retry ${event.data.attempt}: ${event.data.error.message})`);
        return;
      case "turn.ended": {
        const { outcome, usage, error, reason } = event.data;
        const why = error ? `: ${error.message}` : reason ? ` (${reason})` : "";
        this.#line(`— ${outcome}${why}${usage ? `; ${describeUsage(usage)}` : ""}`);
        return;
      }
      case "connection.changed":
        // Names no turn, so a turn's events never carry it: `ocb run` follows the session's.
        this.#connection(event.data);
        return;
      // The rest are shown by their ends (or not at all): a part's start, its deltas but
      // text's, steps, bookkeeping (a session error comes with the turn's failed end, which is
      // printed). A new type prints nothing until it is given a case here.
      default:
        return;
    }
  }

  /** Ends the current line, if one was started (before someone else writes to the same output). */
  endLine(): void {
    this.#newline();
  }

  #connection(state: ConnectionState): void {
    if (state.state === "reconnecting") {
      this.#reconnecting = true;
      this.#line(
        paint(`connection lost, reconnecting (attempt ${state.attempt})…`, "dim", this.#color),
      );
    } else if (this.#reconnecting) {
      this.#reconnecting = false;
      this.#line(paint("reconnected", "dim", this.#color));
    }
  }

  #text(text: string): void {
    if (text.length === 0) return;
    this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  #newline(): void {
    if (!this.#atLineStart) this.#text("\n");
  }

  #line(text: string): void {
    this.#newline();
    this.#text(`${text}\n`);
  }
}

export function describeUsage(usage: Usage): string {
  const { input, output, reasoning, cacheRead } = usage.tokens;
  const extra = [
    reasoning > 0 ? `reasoning ${reasoning}` : "",
    cacheRead > 0 ? `cache read ${cacheRead}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return `tokens in ${input}, out ${output}${extra ? `, ${extra}` : ""}; cost $${usage.cost.toFixed(4)}`;
}

/** The text of a question as the model asked it. */
export function questionText(question: unknown): string {
  if (typeof question === "object" && question !== null && "question" in question) {
    if (typeof question.question === "string") return question.question;
  }
  return JSON.stringify(question);
}

/** One question's answer: its chosen labels (or whatever the server sent). */
export function answerText(answer: unknown): string {
  if (Array.isArray(answer)) return answer.map(String).join(", ");
  return typeof answer === "string" ? answer : JSON.stringify(answer);
}

export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}…` : flat;
}
