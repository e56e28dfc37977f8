/**
 * How `ocb show` prints a stored conversation: the user's inputs as `you:` lines and, indented
 * under each, what the turn produced, one line per tool call, ask or subagent. A pure function
 * of the materialised conversation, so that it is tested without a store or a terminal.
 */

import type { SessionRecord } from "../store/store.js";
import type {
  AssistantMessage,
  Conversation,
  Part,
  UserMessage,
} from "../wire/conversation-types.js";
import { paint } from "./ansi.js";
import { answerText, oneLine, questionText } from "./turn-printer.js";

export interface TextOptions {
  color: boolean;
}

const INDENT = "  ";

/** One dimmed line that says which session this is. */
export function sessionHeading(record: SessionRecord, options: TextOptions): string {
  const title = record.title === undefined ? "" : ` ${JSON.stringify(record.title)}`;
  const facts = [
    record.backend,
    record.state,
    record.directory,
    `updated ${new Date(record.updatedAt).toISOString()}`,
  ];
  return paint(`session ${record.id}${title} (${facts.join(", ")})`, "dim", options.color);
}

/** The whole conversation, one message after another, blank lines between them. */
export function conversationText(conversation: Conversation, options: TextOptions): string {
  if (conversation.messages.length === 0) return "(no messages yet)\n";
  const blocks = conversation.messages.map((message) =>
    message.role === "user" ? userLines(message, options) : assistantLines(message, options),
  );
  return `${blocks.map((lines) => lines.join("\n")).join("\n\n")}\n`;
}

function userLines(message: UserMessage, { color }: TextOptions): string[] {
  const [first = "", ...rest] = message.text.split("\n");
  const lines = [`${paint("you:", "bold", color)} ${first}`, ...rest.map((line) => `     ${line}`)];
  for (const file of message.files ?? []) lines.push(`     ${paint(`+ ${file}`, "cyan", color)}`);
  if (message.cancelled !== undefined) {
    lines.push(`     ${paint(`(not delivered: ${message.cancelled})`, "yellow", color)}`);
  }
  return lines;
}

function assistantLines(message: AssistantMessage, options: TextOptions): string[] {
  const lines = message.parts.flatMap((part) => partLines(part, options));
  const end = outcomeLine(message, options);
  if (end !== undefined) lines.push(end);
  return lines.map((line) => INDENT + line);
}

function partLines(part: Part, { color }: TextOptions): string[] {
  switch (part.type) {
    case "text":
      // Empty until the part ended: a turn cut short may leave one.
      return part.text === "" ? [] : part.text.split("\n");
    case "reasoning":
      return part.text === ""
        ? []
        : `(thinking) ${part.text}`.split("\n").map((line) => paint(line, "dim", color));
    case "tool": {
      const call = `→ ${paint(part.tool, "bold", color)}(${inputSummary(part.input)})`;
      if (part.state === "succeeded") {
        const output = firstLine(part.output ?? "");
        return [`${call} ${paint("✓", "green", color)}${output === "" ? "" : ` ${output}`}`];
      }
      if (part.state === "failed") {
        return [
          `${call} ${paint(`✗ ${firstLine(part.error?.message ?? "failed")}`, "red", color)}`,
        ];
      }
      return [`${call} …`];
    }
    case "permission": {
      const patterns = part.patterns.length > 0 ? ` ${oneLine(part.patterns.join(", "))}` : "";
      const who = part.childSessionId === undefined ? "" : ` (subagent ${part.childSessionId})`;
      const reply = part.reply ?? "no reply";
      const style = part.reply === "reject" ? "red" : part.reply === undefined ? "yellow" : "green";
      return [
        `${paint("?", "yellow", color)} permission ${part.permission}${patterns}${who} → ${paint(reply, style, color)}`,
      ];
    }
    case "question": {
      const [first, ...more] = part.questions.map(questionText);
      const extra = more.length > 0 ? ` (+${more.length} more)` : "";
      const answers = (part.answers ?? []).map(answerText).filter(Boolean).join("; ");
      const reply =
        part.state === "replied"
          ? paint(answers === "" ? "answered" : oneLine(answers), "green", color)
          : part.state === "rejected"
            ? paint("declined", "red", color)
            : paint("no answer", "yellow", color);
      return [`${paint("?", "yellow", color)} question ${oneLine(first ?? "")}${extra} → ${reply}`];
    }
    case "subagent": {
      const who = [part.agent, part.description].filter(Boolean).join(": ");
      const head = `⇢ subagent${who === "" ? "" : ` ${oneLine(who)}`}`;
      if (part.state === "running") return [`${head} …`];
      const result = firstLine(part.result ?? "");
      return [`${head} ${paint("✓", "green", color)}${result === "" ? "" : ` ${result}`}`];
    }
  }
}

/** Completed turns say nothing more; the others say how they ended, or that they have not. */
function outcomeLine(message: AssistantMessage, { color }: TextOptions): string | undefined {
  if (message.outcome === "completed") return undefined;
  if (message.outcome === undefined) return paint("— (the turn has not ended)", "yellow", color);
  const why = message.error === undefined ? "" : `: ${firstLine(message.error.message)}`;
  return paint(
    `— ${message.outcome}${why}`,
    message.outcome === "failed" ? "red" : "yellow",
    color,
  );
}

/** A tool's input in a few words: the value alone when there is one, else `key: value` pairs. */
export function inputSummary(input: Record<string, unknown>): string {
  const entries = Object.entries(input);
  const [only] = entries;
  if (entries.length === 1 && only !== undefined && typeof only[1] === "string") {
    return clip(oneLine(only[1]), 80);
  }
  return clip(
    oneLine(entries.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(", ")),
    80,
  );
}

function firstLine(text: string): string {
  const line = text.split("\n").find((candidate) => candidate.trim() !== "") ?? "";
  return clip(line.trim(), 100);
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
