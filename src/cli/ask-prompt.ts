/**
 * Asks the person at the terminal: whether a tool call may run (the permission, its patterns
 * and the diff, then once / always / no), and the questions the model asks (numbered options).
 * Lines are read through node:readline and kept in order, so a line typed ahead of its
 * prompt is not lost; an aborted ask (the turn ended meanwhile) stops waiting.
 */
import { createInterface, type Interface } from "node:readline/promises";
import type { CanonicalEventOf } from "../events/canonical.js";
import { ANSI, RESET } from "./ansi.js";

export type PermissionAsk = CanonicalEventOf<"permission.asked">["data"];
export type QuestionAsk = CanonicalEventOf<"question.asked">["data"];
export type PermissionReply = "once" | "always" | "reject";
/** The chosen labels, one list per question; or the whole ask declined. */
export type QuestionReply = { reply: "answer"; answers: string[][] } | { reply: "reject" };

export interface AskPromptOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** ANSI colours in the diff. */
  color: boolean;
  /** Ctrl-C at the prompt (a terminal in raw mode sends no signal; readline reports it). */
  onInterrupt?: () => void;
}

interface Question {
  question: string;
  header: string;
  options: { label: string; description: string }[];
  multiple: boolean;
}

export class AskPrompt {
  readonly #output: NodeJS.WritableStream;
  readonly #color: boolean;
  readonly #rl: Interface;
  readonly #lines: string[] = [];
  readonly #waiters: ((line: string | undefined) => void)[] = [];
  #ended = false;

  constructor(options: AskPromptOptions) {
    this.#output = options.output;
    this.#color = options.color;
    this.#rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: (options.input as { isTTY?: boolean }).isTTY === true,
      historySize: 0,
    });
    this.#rl.on("line", (line) => {
      const waiter = this.#waiters.shift();
      if (waiter === undefined) this.#lines.push(line);
      else waiter(line);
    });
    this.#rl.on("close", () => {
      this.#ended = true;
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    });
    const onInterrupt = options.onInterrupt;
    if (onInterrupt !== undefined) this.#rl.on("SIGINT", onInterrupt);
  }

  /** Shows a permission ask and reads once / always / reject (an empty line or end of input rejects). */
  async permission(ask: PermissionAsk, signal?: AbortSignal): Promise<PermissionReply> {
    const lines = [`Permission asked: ${ask.permission}`];
    if (ask.patterns.length > 0) lines.push(`  ${ask.patterns.join("\n  ")}`);
    if (ask.childSessionId !== undefined) lines.push(`  (by subagent ${ask.childSessionId})`);
    if (ask.diff !== undefined && ask.diff.trim() !== "") {
      lines.push(colorDiff(ask.diff.replace(/\n$/, ""), this.#color));
    }
    this.#write(`${lines.join("\n")}\n`);
    for (;;) {
      const answer = await this.#ask("Allow? [y] once  [a] always  [n] no: ", signal);
      switch (answer?.trim().toLowerCase()) {
        case undefined:
        case "":
        case "n":
        case "no":
          return "reject";
        case "y":
        case "yes":
          return "once";
        case "a":
        case "always":
          return "always";
        default:
          this.#write("Please answer y, a or n.\n");
      }
    }
  }

  /**
   * Shows each question with numbered options and reads a number (numbers separated by commas
   * when several may be chosen); a question without options takes free text. An empty line (or
   * end of input) declines the whole ask.
   */
  async question(ask: QuestionAsk, signal?: AbortSignal): Promise<QuestionReply> {
    const answers: string[][] = [];
    const questions = ask.questions.map(toQuestion);
    for (const [index, question] of questions.entries()) {
      const title = question.header !== "" ? `${question.header}: ` : "";
      const counter = questions.length > 1 ? ` (${index + 1}/${questions.length})` : "";
      const lines = [`Question${counter}: ${title}${question.question}`];
      for (const [n, option] of question.options.entries()) {
        const description = option.description !== "" ? ` — ${option.description}` : "";
        lines.push(`  ${n + 1}. ${option.label}${description}`);
      }
      this.#write(`${lines.join("\n")}\n`);
      const answer = await this.#choose(question, signal);
      if (answer === undefined) return { reply: "reject" };
      answers.push(answer);
    }
    return { reply: "answer", answers };
  }

  /** Stops reading (the input stream is left open for its owner). */
  close(): void {
    this.#rl.close();
  }

  async #choose(
    question: Question,
    signal: AbortSignal | undefined,
  ): Promise<string[] | undefined> {
    const count = question.options.length;
    if (count === 0) {
      const text = (await this.#ask("Answer (empty to decline): ", signal))?.trim();
      return text === undefined || text === "" ? undefined : [text];
    }
    const range = count === 1 ? "1" : `1-${count}`;
    const prompt = question.multiple
      ? `Choose ${range}, several separated by commas (empty to decline): `
      : `Choose ${range} (empty to decline): `;
    for (;;) {
      const text = (await this.#ask(prompt, signal))?.trim();
      if (text === undefined || text === "") return undefined;
      const picks = text.split(",").map((part) => part.trim());
      const numbers = picks.map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
      const valid =
        numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= count) &&
        (question.multiple || numbers.length === 1);
      if (valid) {
        const labels = [...new Set(numbers)].map((n) => question.options[n - 1]?.label ?? "");
        return labels;
      }
      this.#write(
        question.multiple
          ? `Please answer with numbers from 1 to ${count}, separated by commas.\n`
          : `Please answer with one number from 1 to ${count}.\n`,
      );
    }
  }

  /** Shows `prompt` and reads the next line; undefined at the end of input. */
  async #ask(prompt: string, signal: AbortSignal | undefined): Promise<string | undefined> {
    signal?.throwIfAborted();
    this.#rl.setPrompt(prompt);
    this.#rl.prompt();
    const kept = this.#lines.shift();
    if (kept !== undefined) return kept;
    if (this.#ended) return undefined;
    return new Promise<string | undefined>((resolve, reject) => {
      const onAbort = () => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        this.#write("\n");
        reject(signal?.reason);
      };
      const waiter = (line: string | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #write(text: string): void {
    this.#output.write(text);
  }
}

/** A unified diff with added lines green, removed red and hunk headers cyan (file headers bold). */
export function colorDiff(diff: string, color: boolean): string {
  if (!color) return diff;
  return diff
    .split("\n")
    .map((line) => {
      const style =
        line.startsWith("+++ ") || line.startsWith("--- ")
          ? ANSI.bold
          : line.startsWith("+")
            ? ANSI.green
            : line.startsWith("-")
              ? ANSI.red
              : line.startsWith("@@")
                ? ANSI.cyan
                : undefined;
      return style === undefined ? line : `${style}${line}${RESET}`;
    })
    .join("\n");
}

/** A question as the model sent it, with defaults where a field is missing. */
function toQuestion(raw: unknown): Question {
  const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const options = Array.isArray(record.options) ? record.options : [];
  return {
    question: text(record.question) || JSON.stringify(raw),
    header: text(record.header),
    options: options.flatMap((option: unknown) => {
      if (typeof option === "string") return [{ label: option, description: "" }];
      if (typeof option !== "object" || option === null) return [];
      const { label, description } = option as Record<string, unknown>;
      return typeof label === "string" ? [{ label, description: text(description) }] : [];
    }),
    multiple: record.multiple === true,
  };
}
