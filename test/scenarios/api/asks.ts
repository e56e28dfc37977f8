/**
 * What the `/api` scenarios of a tool call that asks first (a permission, a question) share:
 * the asks, which 1.18.33 publishes on the live stream only (never on the durable one); the
 * run from the prompt to the answer; following the durable stream from there to the end; and
 * the checks of how such a run ends, answered or rejected.
 */
import { expect } from "vitest";
import { z } from "zod";
import type { OpencodeClient } from "../../../src/opencode-client/opencode-client.js";
import { apiEventSessionId } from "../../../src/opencode-protocol/api/events.js";
import { parseWire } from "../../../src/opencode-protocol/common.js";
import type { ScenarioContext } from "../scenario.js";
import { endsTurn, typesOf } from "../turns.js";
import {
  eventsOf,
  type followSession,
  openApiSession,
  openLiveEvents,
  queuePrompt,
  TEXT_TURN,
} from "./follow.js";

/** `permission.v2.asked`: a tool asks before it acts; `source` names the tool call that waits. */
export const PermissionAsked = z.looseObject({
  type: z.literal("permission.v2.asked"),
  data: z.looseObject({
    id: z.string(),
    sessionID: z.string(),
    action: z.string(),
    resources: z.array(z.string()),
    save: z.array(z.string()).optional(),
    source: z.looseObject({ type: z.string(), messageID: z.string(), callID: z.string() }),
  }),
});
export type PermissionAsked = z.infer<typeof PermissionAsked>;

/** `question.v2.asked`: the `question` tool waits for answers; `tool` names its call. */
export const QuestionAsked = z.looseObject({
  type: z.literal("question.v2.asked"),
  data: z.looseObject({
    id: z.string(),
    sessionID: z.string(),
    questions: z.array(
      z.looseObject({
        question: z.string(),
        header: z.string(),
        options: z.array(z.looseObject({ label: z.string(), description: z.string() })),
      }),
    ),
    tool: z.looseObject({ messageID: z.string(), callID: z.string() }),
  }),
});
export type QuestionAsked = z.infer<typeof QuestionAsked>;

/** An ask's schema: the request id is `data.id`. */
type AskSchema = z.ZodType<{ type: string; data: { id: string } }>;

/** Which ask to wait for: its event type and the schema it is validated with. */
export interface AskKind<S extends AskSchema> {
  type: string;
  schema: S;
}

export const PERMISSION_ASK = { type: "permission.v2.asked", schema: PermissionAsked };
export const QUESTION_ASK = { type: "question.v2.asked", schema: QuestionAsked };

type LiveEvents = Awaited<ReturnType<typeof openLiveEvents>>;

/** Reads the live stream until `sessionID`'s next ask of `kind`, validated. */
export async function nextAsk<S extends AskSchema>(
  live: LiveEvents,
  sessionID: string,
  kind: AskKind<S>,
): Promise<z.output<S>> {
  const read = await live.until(
    (item) => item.event.type === kind.type && apiEventSessionId(item.event) === sessionID,
  );
  return parseWire(kind.schema, read.at(-1)?.event, kind.type);
}

/**
 * Creates a session, opens the live stream (the ask is only there) and the durable one,
 * prompts `text`, reads the live stream as far as the session's ask of `kind` (no further:
 * everything read is recorded), and answers it with `answer`.
 */
export async function promptAskAndAnswer<S extends AskSchema>(
  context: ScenarioContext,
  title: string,
  text: string,
  kind: AskKind<S>,
  answer: (client: OpencodeClient, sessionID: string, requestID: string) => Promise<unknown>,
) {
  const { client, session, durable } = await openApiSession(context, title);
  const live = await openLiveEvents(client);
  try {
    await queuePrompt(client, session.id, text);
    const ask = await nextAsk(live, session.id, kind);
    await live.close();
    await answer(client, session.id, ask.data.id);
    return { client, session, live, durable, ask };
  } catch (error) {
    await live.close();
    await durable.close();
    throw error;
  }
}

/** What `promptAskAndAnswer` leaves open once it has answered `ask`. */
interface Answered<Ask> {
  client: OpencodeClient;
  session: { id: string };
  live: LiveEvents;
  durable: ReturnType<typeof followSession>;
  ask: Ask;
}

/**
 * After an answer the tool goes on with: follows the durable stream until the session
 * settles (`events`). Then, if `then` is given, prompts it (queued, the session being idle)
 * and follows it until the session settles again (`next`).
 */
export async function followToSettled<Ask>(
  { client, session, live, durable, ask }: Answered<Ask>,
  then?: string,
) {
  try {
    await durable.settled();
    const events = [...durable.items];
    const next =
      then === undefined ? undefined : await promptWatched(client, session.id, durable, then);
    return { sessionID: session.id, ask, live: live.of(session.id), events, next };
  } finally {
    await live.close();
    await durable.close();
  }
}

/**
 * Prompts `text` and follows it until the session settles, on the durable stream (`events`)
 * and on a live stream opened first (`live`, this session's events there): only the live
 * stream would show an ask.
 */
async function promptWatched(
  client: OpencodeClient,
  sessionID: string,
  durable: ReturnType<typeof followSession>,
  text: string,
) {
  const live = await openLiveEvents(client);
  try {
    const admitted = await queuePrompt(client, sessionID, text);
    const events = await durable.settled();
    await live.until((item) => endsTurn(item) && apiEventSessionId(item.event) === sessionID);
    return { admitted, events, live: live.of(sessionID) };
  } finally {
    await live.close();
  }
}

/**
 * After a rejection: it stops the run after `tool.failed`, and no step.ended or step.failed
 * follows, so the end is read as `tool.failed`; a next prompt (`[[reply after]]`) then shows
 * the session is free again, and the stream is followed until that one settles.
 */
export async function followRejected<Ask>({ client, session, live, durable, ask }: Answered<Ask>) {
  try {
    const rejected = await durable.untilType("session.next.tool.failed");
    const after = await queuePrompt(client, session.id, "[[reply after]]");
    await durable.settled();
    return {
      sessionID: session.id,
      ask,
      live: live.of(session.id),
      rejected,
      after,
      events: durable.items,
    };
  } finally {
    await live.close();
    await durable.close();
  }
}

/** Durable events of a prompt whose one tool call asks first, up to that call. */
const UP_TO_CALL = [
  "session.next.prompt.admitted",
  "session.next.prompted",
  "session.next.step.started",
  "session.next.tool.input.started",
  "session.next.tool.input.ended",
  "session.next.tool.called",
];

/** Live events up to the ask: the same, with the tool input's two deltas, then the ask. */
function liveUpToAsk(askType: string): string[] {
  const deltas = ["session.next.tool.input.delta", "session.next.tool.input.delta"];
  return [...UP_TO_CALL.slice(0, 4), ...deltas, ...UP_TO_CALL.slice(4), askType];
}

type Ended = Awaited<ReturnType<typeof followToSettled>>;
type Rejected = Awaited<ReturnType<typeof followRejected>>;

/**
 * Checks a run whose tool call was answered and went on: the call succeeds with `content`,
 * and a second step replies `text`. Returns the call, for the ask's own checks.
 */
export function checkAnsweredRun(
  { live, events }: Pick<Ended, "live" | "events">,
  askType: string,
  tool: ToolTurn,
) {
  expect(typesOf(live)).toEqual(liveUpToAsk(askType));
  return checkToolTurn(events, tool);
}

/** A turn's one tool call (`name`, `input`), what it returned, and the reply that follows. */
export interface ToolTurn {
  name: string;
  input: unknown;
  content: unknown;
  text: string;
}

/**
 * Checks the durable events of a turn whose one tool call succeeds with `tool.content`, and
 * a second step replies `tool.text`. Returns the call.
 */
export function checkToolTurn(events: Ended["events"], tool: ToolTurn) {
  // The tool-calls step ends, and a second step of the same turn replies.
  expect(typesOf(events)).toEqual([
    ...UP_TO_CALL,
    "session.next.tool.success",
    "session.next.step.ended",
    ...TEXT_TURN.slice(2),
  ]);
  const [called] = eventsOf(events, "session.next.tool.called");
  const [success] = eventsOf(events, "session.next.tool.success");
  expect(called?.data).toMatchObject({ tool: tool.name, input: tool.input });
  expect(success?.data.callID).toBe(called?.data.callID);
  expect(success?.data.content).toEqual(tool.content);
  expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
    "tool-calls",
    "stop",
  ]);
  expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
    tool.text,
  ]);
  return called;
}

/**
 * Checks a run whose tool call's ask was rejected: the call fails as interrupted, the run
 * stops there with no step end, and the next prompt runs normally. Returns the call.
 */
export function checkRejectedRun(
  { live, rejected, after, events }: Pick<Rejected, "live" | "rejected" | "after" | "events">,
  askType: string,
) {
  expect(typesOf(live)).toEqual(liveUpToAsk(askType));
  expect(typesOf(rejected)).toEqual([...UP_TO_CALL, "session.next.tool.failed"]);
  // Straight after tool.failed the next prompt: the rejected step never ended.
  expect(typesOf(events).slice(rejected.length)).toEqual(TEXT_TURN);
  const [called] = eventsOf(events, "session.next.tool.called");
  const [failed] = eventsOf(events, "session.next.tool.failed");
  expect(failed?.data.callID).toBe(called?.data.callID);
  expect(failed?.data.error).toEqual({ type: "unknown", message: "Tool execution interrupted" });
  expect(eventsOf(events, "session.next.tool.success")).toEqual([]);
  expect(eventsOf(events, "session.next.prompted").at(-1)?.data.messageID).toBe(after.id);
  expect(eventsOf(events, "session.next.step.ended").map((event) => event.data.finish)).toEqual([
    "stop",
  ]);
  expect(eventsOf(events, "session.next.text.ended").map((event) => event.data.text)).toEqual([
    "after",
  ]);
  return called;
}
