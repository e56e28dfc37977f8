/**
 * Directives: how a prompt tells the scripted model what to answer.
 *
 * A directive is written `[[name args]]` anywhere in the text of the last user
 * message. Text that is not a directive is ignored for scripting purposes (it
 * is only echoed back). `[[` followed by a word that is not a directive name
 * is ordinary text, so prompts may contain `[[` freely.
 *
 *   (no directive)            reply `echo: <user text>` in a few chunks
 *   [[reply TEXT]]            reply exactly TEXT (trimmed; TEXT cannot contain `]]`)
 *   [[then TEXT]]             the same as reply; reads better after tools
 *   [[slow N DELAYMS]]        reply "tok1 tok2 … tokN", one token per chunk,
 *                             waiting DELAYMS (default 50) before each token
 *   [[tool NAME JSONARGS]]    call tool NAME with the JSON object JSONARGS
 *                             (default `{}`); repeat the directive to chain
 *                             tools: each answer to a tool result calls the
 *                             next one, in the order written
 *   [[reasoning TEXT]]        stream TEXT as `reasoning_content` before the
 *                             first answer of the turn
 *   [[chunks N]]              stream the reply text, the reasoning and each
 *                             tool's arguments in N chunks each (cut between
 *                             code points, so a character made of several —
 *                             an emoji with a modifier, a letter with a
 *                             combining mark — can be cut; fewer chunks when
 *                             the text is shorter), all sent at once
 *   [[error STATUS times=N JSONBODY]]
 *                             answer with HTTP STATUS (400-599) and JSONBODY
 *                             (default an OpenAI-style error whose type is
 *                             server_error for 5xx, invalid_request_error
 *                             for 4xx);
 *                             `times=N` (optional) fails only the first N
 *                             identical requests, then carries on as if the
 *                             directive were absent (to exercise retries)
 *   [[hang]]                  never answer; the socket stays open until the
 *                             client gives up or the server closes
 *
 * A turn runs the tools first, in order, then one final answer. The final
 * answer is the single `reply`/`then`/`slow`/`error`/`hang` directive if there
 * is one, otherwise `tool NAME returned: <result>` after tools or the echo.
 * Giving two final directives, or two `reasoning`s, is a usage error.
 *
 * JSON arguments may contain `]]`. Because `opencode run` wraps a prompt with
 * spaces in quotes and escapes its inner quotes (`{\"command\":…}`), JSON that
 * does not parse as written is tried once more with `\"` read as `"`.
 */
import { UsageError } from "../../errors.js";

/** One `[[tool …]]` directive: the tool to call and its arguments as JSON text. */
export interface ToolDirective {
  name: string;
  /** The arguments, re-serialised as compact JSON (always an object). */
  arguments: string;
}

/** The directive that decides the last answer of a turn, after any tools. */
export type FinalDirective =
  | { kind: "reply"; text: string }
  | { kind: "slow"; count: number; delayMs: number }
  | { kind: "error"; status: number; body: unknown; times?: number }
  | { kind: "hang" };

/** Everything the directives in one user message ask for. */
export interface Script {
  tools: ToolDirective[];
  final?: FinalDirective;
  reasoning?: string;
  /** `[[chunks N]]`: how many chunks each streamed text is cut into. */
  chunks?: number;
  /** The user text with every directive removed and trimmed (what the echo repeats). */
  text: string;
}

/**
 * The default `[[error STATUS]]` body, shaped like an OpenAI error. The type
 * follows the status because OpenCode reads it: it retries a 4xx whose body
 * says `server_error` (with backoff, for a minute or more), which would turn a
 * quick scripted failure into a slow one.
 */
export function defaultErrorBody(status: number): {
  error: { message: string; type: "server_error" | "invalid_request_error" };
} {
  const type = status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message: "scripted provider error", type } };
}

const directiveNames = new Set([
  "reply",
  "then",
  "slow",
  "tool",
  "reasoning",
  "chunks",
  "error",
  "hang",
]);
const close = "]]";
const maxSlowTokens = 10_000;
const maxChunks = 10_000;
const maxDelayMs = 600_000;

interface Span {
  name: string;
  /** The text between the name and the closing `]]`, untrimmed. */
  args: string;
  start: number;
  end: number;
}

/**
 * Reads the directives of one user message. Throws `UsageError` naming the
 * offending directive when one is malformed, so a typo fails loudly instead of
 * silently echoing.
 */
export function parseDirectives(text: string): Script {
  const script: Script = { tools: [], text: "" };
  let plain = "";
  let cursor = 0;
  for (const span of findSpans(text)) {
    plain += text.slice(cursor, span.start);
    cursor = span.end;
    applyDirective(script, span, text.slice(span.start, span.end));
  }
  plain += text.slice(cursor);
  script.text = plain.trim();
  return script;
}

function* findSpans(text: string): Generator<Span> {
  let from = 0;
  for (;;) {
    const start = text.indexOf("[[", from);
    if (start < 0) return;
    const name = /^[a-z]+/.exec(text.slice(start + 2))?.[0] ?? "";
    const afterName = start + 2 + name.length;
    const next = text.slice(afterName, afterName + 2);
    if (!directiveNames.has(name) || !(next === close || /^\s/.test(next))) {
      from = start + 2;
      continue;
    }
    const end = name === "tool" || name === "error" ? endOfJsonDirective(text, afterName) : -1;
    const closeAt = end >= 0 ? end : text.indexOf(close, afterName);
    if (closeAt < 0) {
      throw new UsageError(
        `Unclosed scripted-model directive "${text.slice(start, start + 40)}…": end it with "]]".`,
      );
    }
    yield { name, args: text.slice(afterName, closeAt), start, end: closeAt + close.length };
    from = closeAt + close.length;
  }
}

/**
 * For directives whose arguments end in JSON (which may itself contain `]]`),
 * finds the `]]` that closes the directive: the first one before which the
 * arguments parse. Returns -1 when none does, and the caller then falls back
 * to the first `]]` so the error message shows the bad JSON.
 */
function endOfJsonDirective(text: string, from: number): number {
  let closeAt = text.indexOf(close, from);
  while (closeAt >= 0) {
    const json = splitJsonTail(text.slice(from, closeAt)).json;
    if (json === undefined || parseLenientJson(json) !== undefined) return closeAt;
    closeAt = text.indexOf(close, closeAt + 1);
  }
  return -1;
}

/** Splits `WORD WORD … {json}` into the leading words and the JSON tail (from the first `{`, `[` or `"`). */
function splitJsonTail(args: string): { words: string[]; json?: string } {
  const at = args.search(/[{["]/);
  const head = at < 0 ? args : args.slice(0, at);
  const words = head.split(/\s+/).filter((word) => word !== "");
  const json = at < 0 ? undefined : args.slice(at).trim();
  return json === undefined ? { words } : { words, json };
}

/** Parses JSON, or JSON whose quotes were escaped by a shell-quoting step; `undefined` if neither. */
function parseLenientJson(json: string): { value: unknown } | undefined {
  for (const candidate of [json, json.replaceAll('\\"', '"')]) {
    try {
      return { value: JSON.parse(candidate) as unknown };
    } catch {
      // Not JSON as written; the unescaped form is tried next.
    }
  }
  return undefined;
}

function applyDirective(script: Script, span: Span, source: string): void {
  const args = span.args.trim();
  const bad = (why: string): UsageError =>
    new UsageError(`Bad scripted-model directive ${source}: ${why}`);
  const setFinal = (final: FinalDirective): void => {
    if (script.final) {
      throw bad("a prompt may give only one of [[reply]], [[then]], [[slow]], [[error]], [[hang]]");
    }
    script.final = final;
  };

  switch (span.name) {
    case "reply":
    case "then":
      setFinal({ kind: "reply", text: args });
      return;
    case "reasoning":
      if (script.reasoning !== undefined) throw bad("give [[reasoning]] only once");
      script.reasoning = args;
      return;
    case "chunks": {
      if (script.chunks !== undefined) throw bad("give [[chunks]] only once");
      const n = parseInteger(args);
      if (n === undefined || n < 1 || n > maxChunks) {
        throw bad(`expected [[chunks N]] with N an integer from 1 to ${maxChunks}`);
      }
      script.chunks = n;
      return;
    }
    case "hang":
      if (args !== "") throw bad("[[hang]] takes no arguments");
      setFinal({ kind: "hang" });
      return;
    case "slow": {
      const [count, delay, ...rest] = args.split(/\s+/);
      const n = parseInteger(count);
      const delayMs = delay === undefined ? 50 : parseInteger(delay);
      if (n === undefined || n < 1 || n > maxSlowTokens || rest.length > 0) {
        throw bad(`expected [[slow N DELAYMS]] with N an integer from 1 to ${maxSlowTokens}`);
      }
      if (delayMs === undefined || delayMs > maxDelayMs) {
        throw bad(`DELAYMS must be an integer from 0 to ${maxDelayMs}`);
      }
      setFinal({ kind: "slow", count: n, delayMs });
      return;
    }
    case "tool": {
      const { words, json } = splitJsonTail(args);
      const [name, ...rest] = words;
      if (name === undefined || rest.length > 0 || !/^[\w.:-]+$/.test(name)) {
        throw bad('expected [[tool NAME {"json":"arguments"}]] with a single-word NAME');
      }
      const parsed = json === undefined ? { value: {} } : parseLenientJson(json);
      if (!parsed || !isPlainObject(parsed.value)) {
        throw bad("the tool arguments must be a JSON object");
      }
      script.tools.push({ name, arguments: JSON.stringify(parsed.value) });
      return;
    }
    case "error": {
      const { words, json } = splitJsonTail(args);
      const [statusWord, timesWord, ...rest] = words;
      const status = parseInteger(statusWord);
      if (status === undefined || status < 400 || status > 599) {
        throw bad("expected [[error STATUS JSONBODY]] with STATUS from 400 to 599");
      }
      const times =
        timesWord === undefined ? undefined : parseInteger(/^times=(.*)$/.exec(timesWord)?.[1]);
      if ((timesWord !== undefined && (times === undefined || times < 1)) || rest.length > 0) {
        throw bad("the only option after STATUS is times=N with N a positive integer");
      }
      const parsed =
        json === undefined ? { value: defaultErrorBody(status) } : parseLenientJson(json);
      if (!parsed) throw bad("the body must be JSON");
      setFinal(
        times === undefined
          ? { kind: "error", status, body: parsed.value }
          : { kind: "error", status, body: parsed.value, times },
      );
      return;
    }
    default:
      throw bad("unknown directive");
  }
}

function parseInteger(word: string | undefined): number | undefined {
  if (word === undefined || !/^\d+$/.test(word)) return undefined;
  return Number.parseInt(word, 10);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
