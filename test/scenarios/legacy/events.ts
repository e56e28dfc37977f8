/**
 * Helpers the legacy scenarios share: reading the `/event` stream up to a precise point, and
 * picking tool states, texts and errors out of what was read. They live here, beside the
 * scenarios, because only tests need them.
 */
import { expect } from "vitest";
import type { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import type { Parsed } from "../../../src/opencode-protocol/common.js";
import type { LegacyEvent, LegacyEventType } from "../../../src/opencode-protocol/legacy/events.js";
import type { Part } from "../../../src/opencode-protocol/legacy/parts.js";
import type {
  MessageWithParts,
  PartInput,
  SessionCreateRequest,
} from "../../../src/opencode-protocol/legacy/session.js";
import type { ScenarioContext } from "../scenario.js";
import { clientFor, DEMO_MODEL, isLegacy, openLegacyEvents, typesOf } from "../turns.js";

export type LegacyItem = Parsed<LegacyEvent>;
export type LegacyEvents = Awaited<ReturnType<typeof openLegacyEvents>>;
export type LegacyEventOf<T extends LegacyEventType> = Extract<LegacyEvent, { type: T }>;
export type ToolPart = Extract<Part, { type: "tool" }>;

/** Sends one prompt of `parts` with the scripted model, without waiting for the turn. */
export function promptParts(client: OpencodeClient, sessionID: string, parts: PartInput[]) {
  return client.session.promptAsync({ sessionID, model: DEMO_MODEL, parts });
}

/** Sends one text prompt with the scripted model, without waiting for the turn. */
export function promptText(client: OpencodeClient, sessionID: string, text: string) {
  return promptParts(client, sessionID, [{ type: "text", text }]);
}

/**
 * Opens `/event`, creates a session with `create`, and lets `drive` prompt and read (it
 * should read until the session goes idle). Returns what `drive` returned, the session's
 * events read and, once the stream is closed, its messages.
 */
export async function inLegacySession<Driven>(
  context: ScenarioContext,
  create: SessionCreateRequest,
  drive: (client: OpencodeClient, sessionID: string, stream: LegacyEvents) => Promise<Driven>,
) {
  const client = clientFor(context);
  const stream = await openLegacyEvents(client);
  try {
    const session = await client.session.create(create);
    const driven = await drive(client, session.id, stream);
    const events = stream.of(session.id);
    await stream.close();
    const messages = await client.session.messages({ sessionID: session.id });
    return { driven, events, messages };
  } finally {
    await stream.close();
  }
}

/** A session prompted once with `parts` and read until it goes idle: its events and messages. */
export async function promptToIdle(
  context: ScenarioContext,
  create: SessionCreateRequest,
  parts: PartInput[],
) {
  const { events, messages } = await inLegacySession(
    context,
    create,
    async (client, sessionID, stream) => {
      await promptParts(client, sessionID, parts);
      await stream.idle(sessionID);
    },
  );
  return { events, messages };
}

/** The known events of `type` among `items`, in order. */
export function eventsOf<T extends LegacyEventType>(
  items: readonly LegacyItem[],
  type: T,
): LegacyEventOf<T>[] {
  return items.flatMap((item) =>
    item.known && item.event.type === type ? [item.event as LegacyEventOf<T>] : [],
  );
}

/** The tool part snapshot in `item`, if it is one for `tool`. */
export function toolPartIn(item: LegacyItem, tool: string): ToolPart | undefined {
  if (!item.known || item.event.type !== "message.part.updated") return undefined;
  const { part } = item.event.properties;
  return part.type === "tool" && part.tool === tool ? part : undefined;
}

/** Every snapshot of the `tool` parts among `items`, in order. */
export function toolSnapshots(items: readonly LegacyItem[], tool: string): ToolPart[] {
  return items.flatMap((item) => {
    const part = toolPartIn(item, tool);
    return part === undefined ? [] : [part];
  });
}

/** The statuses a `tool` part went through, repeats (metadata updates) collapsed. */
export function toolStatuses(items: readonly LegacyItem[], tool: string): string[] {
  const statuses: string[] = [];
  for (const part of toolSnapshots(items, tool)) {
    if (statuses.at(-1) !== part.state.status) statuses.push(part.state.status);
  }
  return statuses;
}

/** Joined `message.part.delta` text per part, in the order the parts started streaming. */
export function streamedTexts(items: readonly LegacyItem[], sessionID: string): string[] {
  const texts = new Map<string, string>();
  for (const event of eventsOf(items, "message.part.delta")) {
    if (event.properties.sessionID !== sessionID || event.properties.field !== "text") continue;
    const { partID, delta } = event.properties;
    texts.set(partID, (texts.get(partID) ?? "") + delta);
  }
  return [...texts.values()];
}

/** The text parts of the assistant messages in `messages`, in order. */
export function assistantTexts(messages: readonly MessageWithParts[]): string[] {
  return messages
    .filter((message) => message.info.role === "assistant")
    .flatMap((message) =>
      message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])),
    );
}

/** `role` of each message, in order. */
export function rolesOf(messages: readonly MessageWithParts[]): string[] {
  return messages.map((message) => message.info.role);
}

/**
 * Reads until `sessionID` goes idle after an event for which `after` held (read by this
 * call). OpenCode 1.18 sends `session.idle` twice when a turn fails or is aborted: once when
 * the loop gives up, again once the assistant message is written with its error; waiting for
 * the idle that follows that message keeps the recording to the same events every run.
 */
export function idleAfter(
  stream: LegacyEvents,
  sessionID: string,
  after: (item: LegacyItem) => boolean,
): Promise<LegacyItem[]> {
  let seen = false;
  return stream.until((item) => {
    if (seen) return isLegacy(item, "session.idle", sessionID);
    seen = after(item);
    return false;
  });
}

/**
 * The assistant message in `item`, if `item` is a `message.updated` of `sessionID` whose
 * message is finished (or failed).
 */
export function finishedAssistant(item: LegacyItem, sessionID: string) {
  if (!item.known || item.event.type !== "message.updated") return undefined;
  const { info } = item.event.properties;
  return info.sessionID === sessionID &&
    info.role === "assistant" &&
    info.time.completed !== undefined
    ? info
    : undefined;
}

/** Where in `items` the text part with exactly `text` first appeared (-1 if it did not). */
export function indexOfTextPart(items: readonly LegacyItem[], text: string): number {
  return items.findIndex(
    (item) =>
      item.known &&
      item.event.type === "message.part.updated" &&
      item.event.properties.part.type === "text" &&
      item.event.properties.part.text === text,
  );
}

/** The asks a tool call can wait on, and the events their answers publish. */
type AskType = "permission.asked" | "question.asked";
type AnswerType = "permission.replied" | "question.replied" | "question.rejected";

/**
 * Creates a session with `create`, prompts `text`, reads as far as the session's ask of
 * `type`, answers it with `answer` (whose result comes back as `answered`), and reads until
 * the session goes idle; then, if `then` is given, prompts it and reads until the session
 * goes idle again. Returns the session's events read and its messages.
 */
export async function promptAskAndAnswer<T extends AskType, Answer>(
  context: ScenarioContext,
  create: SessionCreateRequest,
  text: string,
  type: T,
  answer: (client: OpencodeClient, asked: LegacyEventOf<T>) => Promise<Answer>,
  then?: string,
) {
  const { driven, events, messages } = await inLegacySession(
    context,
    create,
    async (client, sessionID, stream) => {
      await promptText(client, sessionID, text);
      const [asked] = eventsOf(await stream.until((item) => isLegacy(item, type, sessionID)), type);
      if (asked === undefined) throw new Error(`${type} did not parse`);
      const answered = await answer(client, asked);
      await stream.idle(sessionID);
      if (then !== undefined) {
        await promptText(client, sessionID, then);
        await stream.idle(sessionID);
      }
      return answered;
    },
  );
  return { answered: driven, events, messages };
}

/**
 * Checks a turn whose one `tool` call asked first (`ask.type`) and was answered: the ask names
 * that call and was the one request pending (`pending`, listed before answering); the answer
 * (`answered`, its call's result) was accepted and published as `ask.answer` with
 * `ask.properties` (besides the session and request ids), after the ask and before the tool
 * settled; the session went idle with no error; and the turn ended as `outcome` says: a tool
 * that went on completes and a second step replies `outcome.text`; a rejection fails the tool
 * and ends the turn there (finish `tool-calls`, no error, no further model call). Returns the
 * ask and the tool part's last snapshot, for the tool's own checks.
 */
export function checkAnsweredAsk<T extends AskType>(
  result: {
    events: LegacyItem[];
    messages: MessageWithParts[];
    pending: readonly { id: string }[];
    answered: boolean;
  },
  tool: string,
  ask: { type: T; answer: AnswerType; properties: Record<string, unknown> },
  outcome: { text: string } | "rejected",
): { asked: LegacyEventOf<T> | undefined; last: ToolPart | undefined } {
  const { events, messages, pending, answered } = result;
  const [asked] = eventsOf(events, ask.type);
  const request = (asked as LegacyEventOf<AskType> | undefined)?.properties;
  const last = toolSnapshots(events, tool).at(-1);
  expect(request?.tool).toEqual({ messageID: last?.messageID, callID: last?.callID });
  expect(pending.map((pended) => pended.id)).toEqual([request?.id]);
  expect(answered).toBe(true);
  expect(eventsOf(events, ask.answer).map((event) => event.properties)).toEqual([
    { sessionID: request?.sessionID, requestID: request?.id, ...ask.properties },
  ]);
  const at = (found: (item: LegacyItem) => boolean) => events.findIndex(found);
  const askedAt = at((item) => item.event.type === ask.type);
  const answerAt = at((item) => item.event.type === ask.answer);
  const settledAt = at((item) => {
    const status = toolPartIn(item, tool)?.state.status;
    return status === "completed" || status === "error";
  });
  expect([askedAt > -1, askedAt < answerAt, answerAt < settledAt]).toEqual([true, true, true]);
  expect(typesOf(events).at(-1)).toBe("session.idle");
  expect(eventsOf(events, "session.error")).toEqual([]);
  if (outcome === "rejected") {
    expect(toolStatuses(events, tool)).toEqual(["pending", "running", "error"]);
    expect(rolesOf(messages)).toEqual(["user", "assistant"]);
    const assistant = messages[1]?.info;
    expect(assistant?.role === "assistant" && assistant.finish).toBe("tool-calls");
    expect(assistant?.role === "assistant" && assistant.error).toBeUndefined();
    expect(assistantTexts(messages)).toEqual([]);
  } else {
    expect(toolStatuses(events, tool)).toEqual(["pending", "running", "completed"]);
    expect(rolesOf(messages)).toEqual(["user", "assistant", "assistant"]);
    expect(assistantTexts(messages)).toEqual([outcome.text]);
  }
  return { asked, last };
}
