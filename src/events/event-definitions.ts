/**
 * Every canonical event type, defined once: its payload's zod schema, whether a transcript keeps
 * it (the map it is in), what it means and an example. The TypeScript types and the type lists
 * (`canonical.ts`), the wire's schemas (`wire/canonical-schema.ts`) and the tables of
 * docs/events.md (`npm run docs:events`) all follow from these maps. A new type is one entry
 * here; then the normaliser or backend that makes it and the reducer that shows it
 * (CONTRIBUTING.md, "Adding a canonical event type").
 */
import { z } from "zod";
import {
  ConnectionStateSchema,
  ErrorInfoSchema,
  FileChangeSchema,
  ModelRefSchema,
  OutcomeSchema,
  RevertedFileSchema,
  TodoSchema,
  UsageSchema,
} from "./event-parts.js";

/** What an event type means and an example of its payload, as docs/events.md shows them. */
export interface EventAbout<Data> {
  description: string;
  example: Data;
}

/** `data` with its description and example attached (zod metadata: the OpenAPI document shows them too). */
function defineEvent<S extends z.ZodType>(data: S, about: EventAbout<z.output<S>>): S {
  return data.meta({ description: about.description, examples: [about.example] });
}

/** What `defineEvent` attached to a payload schema. */
export function aboutEvent(data: z.ZodType): EventAbout<unknown> {
  const { description, examples } = data.meta() ?? {};
  if (description === undefined || !Array.isArray(examples) || examples.length !== 1) {
    throw new TypeError("an event's payload schema is made with defineEvent");
  }
  return { description, example: examples[0] };
}

const optionalString = () => z.string().exactOptional();
const usage = () => UsageSchema.exactOptional();
const stepId = () => optionalString();
const USAGE_EXAMPLE = {
  tokens: { input: 12, output: 4, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  cost: 0,
};

/** The durable events: stored, numbered (`seq`) and replayed. */
export const DURABLE_EVENTS = {
  "session.created": defineEvent(
    z.object({
      title: optionalString(),
      directory: optionalString(),
      parentSessionId: optionalString(),
    }),
    { description: "title, directory, parent", example: { title: "spike interrupt" } },
  ),
  "session.updated": defineEvent(z.object({ title: optionalString() }), {
    description: "title",
    example: { title: "Fix the login bug" },
  }),
  "session.error": defineEvent(z.object({ error: ErrorInfoSchema }), {
    description: "error",
    example: { error: { kind: "provider", message: "rate limited" } },
  }),
  "session.reverted": defineEvent(
    z.object({
      inputId: z.string(),
      files: z.array(RevertedFileSchema).exactOptional(),
      moreFiles: z.number().int().exactOptional(),
    }),
    {
      description:
        "undo: the session was taken back to before this input (`Session.revert`), its files and those of every input after it put back as they were (`files`, the first 200; `moreFiles` beyond); a conversation moves those messages to `undone` until `session.unreverted` (redo) brings them back or the next input makes the undo final",
      example: {
        inputId: "msg_2355d07a3001tBCy4GoAM1JV4O",
        files: [{ path: "src/app.ts", status: "modified", additions: 3, deletions: 1 }],
      },
    },
  ),
  "session.unreverted": defineEvent(z.object({ inputId: z.string() }), {
    description:
      "redo: the undo to before this input was taken back (`Session.unrevert`), its messages and file changes restored",
    example: { inputId: "msg_2355d07a3001tBCy4GoAM1JV4O" },
  }),
  "session.forked": defineEvent(
    z.object({
      from: z.object({ sessionId: z.string(), inputId: z.string() }),
      upstreamId: z.string(),
    }),
    {
      description:
        "this session is a fork (`Bridge.forkSession`): the events before it are `from.sessionId`'s up to before its input `from.inputId`, copied; it runs on a new OpenCode session (`upstreamId`), whose first input carries that conversation to the model",
      example: {
        from: {
          sessionId: "ses_dc6d30ef5ffeH8CYvyPfjRNZpl",
          inputId: "msg_2355d07a3001tBCy4GoAM1JV4O",
        },
        upstreamId: "ses_dc6d2eb91ffeuqqZIaOTbOVx3p",
      },
    },
  ),
  "session.rehydrated": defineEvent(
    z.object({ previousUpstreamId: z.string(), upstreamId: z.string() }),
    {
      description:
        "the session's OpenCode session was lost (deleted, or kept on another machine) and it goes on in a new one (`Bridge.continueSession`): the events before it happened in `previousUpstreamId`; the next input carries that conversation to the model",
      example: {
        previousUpstreamId: "ses_dc6d30ef5ffeH8CYvyPfjRNZpl",
        upstreamId: "ses_dc6d2eb91ffeuqqZIaOTbOVx3p",
      },
    },
  ),
  "session.imported": defineEvent(
    z.object({ upstreamId: z.string(), messages: z.number().int().nonnegative() }),
    {
      description:
        "this session is an OpenCode session the user made without the bridge (`opencode run`, the TUI), imported (`Bridge.importSession`): the events before it are its `messages` messages, read from OpenCode; the `/api` model does not see them, so the next input carries that conversation to it",
      example: { upstreamId: "ses_dc6b51563fferCMdV2onmN5IUt", messages: 5 },
    },
  ),
  "input.admitted": defineEvent(
    z.object({
      inputId: z.string(),
      text: z.string(),
      delivery: z.enum(["steer", "queue"]),
      files: z.array(z.string()).exactOptional(),
    }),
    {
      description: "an input the server took, and how",
      example: { inputId: "msg_2261…", text: "hi", delivery: "queue" },
    },
  ),
  "input.delivered": defineEvent(z.object({ inputId: z.string() }), {
    description: "the input reached the model (inside `turnId`)",
    example: { inputId: "msg_2261…" },
  }),
  "input.cancelled": defineEvent(z.object({ inputId: z.string(), reason: z.string() }), {
    description: "an input dropped before delivery",
    example: { inputId: "msg_2261…", reason: "interrupted" },
  }),
  "turn.started": defineEvent(z.object({ inputId: optionalString() }), {
    description: "the input that started it",
    example: { inputId: "msg_2261…" },
  }),
  "turn.ended": defineEvent(
    z.object({
      outcome: OutcomeSchema,
      reason: optionalString(),
      error: ErrorInfoSchema.exactOptional(),
      usage: usage(),
      text: optionalString(),
    }),
    {
      description: "outcome, reason, error, usage, final text",
      example: { outcome: "interrupted", text: "I'll run that now." },
    },
  ),
  "step.started": defineEvent(
    z.object({
      stepId: z.string(),
      model: ModelRefSchema.exactOptional(),
      agent: optionalString(),
    }),
    {
      description: "one model call",
      example: {
        stepId: "msg_2262…",
        model: { providerID: "demo", modelID: "demo-1" },
        agent: "build",
      },
    },
  ),
  "step.ended": defineEvent(z.object({ stepId: z.string(), finish: z.string(), usage: usage() }), {
    description: "finish and usage",
    example: { stepId: "msg_2262…", finish: "stop", usage: USAGE_EXAMPLE },
  }),
  "step.failed": defineEvent(
    z.object({ stepId: z.string(), error: ErrorInfoSchema, usage: usage() }),
    {
      description: "error",
      example: {
        stepId: "msg_2262…",
        error: { kind: "provider", message: "Provider request failed with HTTP 400: …" },
      },
    },
  ),
  "text.started": defineEvent(z.object({ partId: z.string(), stepId: stepId() }), {
    description: "a text part began",
    example: { partId: "msg_2262…/text-0", stepId: "msg_2262…" },
  }),
  "text.ended": defineEvent(z.object({ partId: z.string(), stepId: stepId(), text: z.string() }), {
    description: "the whole text",
    example: { partId: "msg_2262…/text-0", stepId: "msg_2262…", text: "tok1 tok2 tok3 tok4" },
  }),
  "reasoning.started": defineEvent(z.object({ partId: z.string(), stepId: stepId() }), {
    description: "a reasoning part began",
    example: { partId: "msg_2262…/reasoning-0" },
  }),
  "reasoning.ended": defineEvent(
    z.object({ partId: z.string(), stepId: stepId(), text: z.string() }),
    {
      description: "the whole reasoning",
      example: { partId: "msg_2262…/reasoning-0", text: "The user wants…" },
    },
  ),
  "tool.input.started": defineEvent(
    z.object({ callId: z.string(), tool: z.string(), stepId: stepId() }),
    {
      description: "a tool call's input began streaming",
      example: { callId: "call_1", tool: "bash" },
    },
  ),
  "tool.input.ended": defineEvent(z.object({ callId: z.string(), input: z.string() }), {
    description: "its raw input text",
    example: { callId: "call_1", input: '{"command":"echo hi"}' },
  }),
  "tool.called": defineEvent(
    z.object({
      callId: z.string(),
      tool: z.string(),
      input: z.record(z.string(), z.unknown()),
      stepId: stepId(),
    }),
    {
      description: "the call, parsed",
      example: { callId: "call_1", tool: "bash", input: { command: "echo hi" } },
    },
  ),
  "tool.succeeded": defineEvent(
    z.object({ callId: z.string(), output: z.string(), title: optionalString() }),
    { description: "its output", example: { callId: "call_1", output: "hi\n" } },
  ),
  "tool.failed": defineEvent(z.object({ callId: z.string(), error: ErrorInfoSchema }), {
    description: "its error",
    example: {
      callId: "call_1",
      error: { kind: "interrupted", message: "Tool execution interrupted" },
    },
  }),
  "permission.asked": defineEvent(
    z.object({
      requestId: z.string(),
      permission: z.string(),
      patterns: z.array(z.string()),
      callId: optionalString(),
      always: z.array(z.string()).exactOptional(),
      diff: optionalString(),
      files: z.array(z.string()).exactOptional(),
      /**
       * Why a file edit's ask has no `diff`: the bridge reads no file outside the session
       * directory, nor one (or an edit's result) over 1 MiB, and gives up a diff after 400 ms.
       */
      diffOmitted: z.enum(["outside-directory", "too-large", "too-slow"]).exactOptional(),
      /** Set when a subagent's child session asks: the ask surfaces on the parent's turn. */
      childSessionId: optionalString(),
    }),
    {
      description: "an approval to give",
      example: {
        requestId: "per_…",
        permission: "edit",
        patterns: ["src/a.ts"],
        callId: "call_2",
        diff: "--- a\n+++ b\n…",
      },
    },
  ),
  "permission.replied": defineEvent(
    z.object({ requestId: z.string(), reply: z.enum(["once", "always", "reject"]) }),
    { description: "the answer", example: { requestId: "per_…", reply: "once" } },
  ),
  "question.asked": defineEvent(
    z.object({
      requestId: z.string(),
      questions: z.array(z.unknown()),
      callId: optionalString(),
      /** Set when a subagent's child session asks. */
      childSessionId: optionalString(),
    }),
    {
      description: "questions for the user",
      example: { requestId: "que_…", questions: [{ question: "Which one?" }] },
    },
  ),
  "question.replied": defineEvent(
    z.object({ requestId: z.string(), answers: z.array(z.unknown()).exactOptional() }),
    { description: "the answers", example: { requestId: "que_…", answers: [["A"]] } },
  ),
  "question.rejected": defineEvent(z.object({ requestId: z.string() }), {
    description: "declined",
    example: { requestId: "que_…" },
  }),
  "subagent.started": defineEvent(
    z.object({
      callId: z.string(),
      childSessionId: z.string(),
      agent: optionalString(),
      description: optionalString(),
    }),
    {
      description: "a child session runs for a tool call",
      example: {
        callId: "call_3",
        childSessionId: "ses_…",
        agent: "general",
        description: "child work",
      },
    },
  ),
  "subagent.ended": defineEvent(
    z.object({ callId: z.string(), childSessionId: z.string(), result: optionalString() }),
    {
      description: "its result",
      example: { callId: "call_3", childSessionId: "ses_…", result: "child done" },
    },
  ),
  "file.edited": defineEvent(z.object({ file: z.string() }), {
    description: "a file the agent changed",
    example: { file: "src/a.ts" },
  }),
  "files.changed": defineEvent(
    z.object({
      files: z.array(FileChangeSchema),
      moreFiles: z.number().int().exactOptional(),
    }),
    {
      description:
        "at the end of a turn that changed files (after its `turn.ended`, in its `turnId`): the files it changed, as OpenCode's snapshots of its steps name them (the first 200; `moreFiles` beyond), each with the lines the turn itself changed (from the snapshots before its first step and after its last, where the bridge manages the server; else against the last commit, `git diff HEAD`); `Session.changes` gives the diffs",
      example: {
        files: [{ path: "src/app.ts", status: "modified", additions: 3, deletions: 1 }],
      },
    },
  ),
  "todo.updated": defineEvent(z.object({ todos: z.array(TodoSchema) }), {
    description:
      "the session's todo list, whole, as the agent's `todowrite` tool last wrote it (the first 100 entries)",
    example: {
      todos: [
        { content: "Write the tests", status: "in_progress", priority: "high" },
        { content: "Update the docs", status: "pending", priority: "medium" },
      ],
    },
  }),
  "model.switched": defineEvent(z.object({ model: ModelRefSchema }), {
    description: "the session's model changed",
    example: { model: { providerID: "demo", modelID: "demo-2" } },
  }),
  "agent.switched": defineEvent(z.object({ agent: z.string() }), {
    description:
      "the session's agent changed (`Session.switchAgent`): the following steps run as `agent`",
    example: { agent: "plan" },
  }),
  retry: defineEvent(z.object({ attempt: z.number(), error: ErrorInfoSchema }), {
    description: "the server retries a step",
    example: { attempt: 1, error: { kind: "provider", message: "HTTP 503" } },
  }),
  "compaction.started": defineEvent(z.object({ reason: optionalString() }), {
    description: "context compaction began",
    example: { reason: "overflow" },
  }),
  "compaction.ended": defineEvent(z.object({ reason: optionalString() }), {
    description: "and ended",
    example: { reason: "overflow" },
  }),
  "session.compacted": defineEvent(
    z.object({
      /**
       * The summary, where the bridge made it (`serve`: the summary turn's reply, which the
       * new OpenCode session is primed with); OpenCode's own compaction keeps it upstream.
       */
      summary: z.string().optional(),
    }),
    {
      description:
        "the session's history was compacted into a summary (`Bridge.compactSession`): the following turns' model gets the summary instead of the messages before it",
      example: { summary: "We fixed the login bug in src/auth.ts; the tests pass." },
    },
  ),
  "native.unknown": defineEvent(
    z.object({
      nativeType: z.string(),
      raw: z.unknown(),
      /** Why it was not understood (its schema's issues, or what the normaliser threw). */
      error: optionalString(),
    }),
    {
      description:
        "a native event with no canonical counterpart, kept whole; `error` when it failed its schema or the normaliser threw",
      example: { nativeType: "shell.created", raw: { type: "shell.created" } },
    },
  ),
};

/**
 * A delta's `catchUp`: it is the first a reader that joined mid-part is given, and `delta` is
 * everything the part has streamed so far, which replaces what the reader has of it (one that
 * resumed mid-part has some already). See docs/events.md, "Deltas".
 */
const catchUp = () => z.literal(true).exactOptional();

/** The ephemeral events: live only, never stored. */
export const EPHEMERAL_EVENTS = {
  "text.delta": defineEvent(
    z.object({ partId: z.string(), delta: z.string(), catchUp: catchUp() }),
    {
      description: "a piece of text",
      example: { partId: "msg_2262…/text-0", delta: "tok2 " },
    },
  ),
  "reasoning.delta": defineEvent(
    z.object({ partId: z.string(), delta: z.string(), catchUp: catchUp() }),
    {
      description: "a piece of reasoning",
      example: { partId: "msg_2262…/reasoning-0", delta: "The user" },
    },
  ),
  "tool.input.delta": defineEvent(
    z.object({ callId: z.string(), delta: z.string(), catchUp: catchUp() }),
    {
      description: "a piece of a tool call's input",
      example: { callId: "call_1", delta: '{"comm' },
    },
  ),
  "tool.progress": defineEvent(
    z.object({
      callId: z.string(),
      metadata: z.record(z.string(), z.unknown()).exactOptional(),
    }),
    {
      description: "a running tool reported progress",
      example: { callId: "call_1", metadata: { shellID: "sh_…" } },
    },
  ),
  "usage.updated": defineEvent(z.object({ usage: UsageSchema }), {
    description: "usage so far",
    example: {
      usage: {
        tokens: { input: 8762, output: 47, reasoning: 0, cacheRead: 486, cacheWrite: 0 },
        cost: 0,
      },
    },
  }),
  "connection.changed": defineEvent(ConnectionStateSchema, {
    description:
      "the session's streams lost or reached the server (the runtime's own: no `turnId`; `Session.connection` holds the latest state)",
    example: {
      state: "reconnecting",
      since: 1795935923221,
      attempt: 3,
      reason: "fetch failed: ECONNREFUSED",
    },
  }),
};
