/**
 * A view of a transcript for comparing two recordings of the same scenario: what differs
 * between runs by nature (ids the server mints, times, ports, hashes, heartbeats, the moment
 * an event arrived relative to an HTTP answer) is taken out, what the scenario did is kept.
 *
 * The view is: the calls in order, each with its answer; and for each stream, its events in
 * order. Interleaving between streams and answers is left out on purpose: it depends on
 * scheduling, not on the server's behaviour.
 */
import type { TranscriptEntry } from "./transcript.js";

export interface NormalizedTranscript {
  calls: { call: unknown; answer?: unknown }[];
  streams: Record<string, unknown[]>;
}

export interface NormalizeOptions {
  /** Event types left out because they come and go with timing (default: VOLATILE_EVENTS). */
  volatileEvents?: readonly string[];
}

/**
 * Events that come and go with timing, not with what the scenario did: heartbeats, and what
 * an OpenCode 1.18 instance sends while it loads its providers and catalog on its first model
 * call (no sessionID; they land anywhere among the first turn's events).
 */
export const VOLATILE_EVENTS: readonly string[] = [
  "server.heartbeat",
  "plugin.added",
  "catalog.updated",
  "reference.updated",
  "integration.updated",
];

/**
 * OpenCode 1.18's session summariser runs beside the loop at each step and after the turn;
 * its events (`session.updated`, `session.diff`, and `message.updated` of the user message)
 * land before or after the loop's next events depending on timing. They are compared in their
 * own lane, `<stream>#summary`, where their own order still counts.
 */
function isSummaryEvent(event: { type?: unknown; properties?: unknown }): boolean {
  if (event.type === "session.updated" || event.type === "session.diff") return true;
  if (event.type !== "message.updated") return false;
  const info = (event.properties as { info?: { role?: unknown } } | undefined)?.info;
  return info?.role === "user";
}

/**
 * OpenCode 1.18 fills an assistant message's step results (`finish`, `time.completed`,
 * `tokens`, `cost`) in the same object it has already handed to the event bus; whether a
 * `message.updated` sent before the step ended shows them depends on when the bus serialised
 * it (seen on legacy /event under load). The session's running totals then count that step
 * once or twice. In event streams these figures are left out; the calls' answers, read after
 * the turn, keep them.
 */
function withoutStepFigures(event: unknown): unknown {
  const { type, properties } = event as { type?: unknown; properties?: { info?: unknown } };
  const info = properties?.info as Record<string, unknown> | undefined;
  if (typeof info !== "object" || info === null) return event;
  let kept: Record<string, unknown>;
  if (type === "session.updated") {
    const { tokens: _tokens, cost: _cost, ...rest } = info;
    kept = rest;
  } else if (type === "message.updated" && info.role === "assistant") {
    const { tokens: _tokens, cost: _cost, finish: _finish, time, ...rest } = info;
    const { completed: _completed, ...started } = (time ?? {}) as Record<string, unknown>;
    kept = time === undefined ? rest : { ...rest, time: started };
  } else {
    return event;
  }
  return { ...(event as object), properties: { ...properties, info: kept } };
}

const ID = /\b(ses|msg|prt|evt|per|que|call|sh|pty|tool|toolu|chatcmpl)_[A-Za-z0-9]+/g;
const ISO_DATE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const LOCAL_PORT = /(127\.0\.0\.1|localhost):\d+/g;
/** An HTTP `Date` header, as echoed in provider errors' `responseHeaders`. */
const HTTP_DATE =
  /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT\b/g;
const HASH = /^[0-9a-f]{40}$/;
const TIME_KEYS = new Set([
  "time",
  "created",
  "updated",
  "timestamp",
  "start",
  "end",
  "completed",
  "started",
  "timeCreated",
  "compacted",
  "initialized",
  "archived",
]);

export function normalizeTranscript(
  entries: readonly TranscriptEntry[],
  options: NormalizeOptions = {},
): NormalizedTranscript {
  const volatile = new Set(options.volatileEvents ?? VOLATILE_EVENTS);
  const ids = new Map<string, string>();
  const counters = new Map<string, number>();
  const idFor = (id: string, prefix: string): string => {
    let name = ids.get(id);
    if (name === undefined) {
      const next = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, next);
      name = `<${prefix}:${next}>`;
      ids.set(id, name);
    }
    return name;
  };
  const clean = (value: unknown, key?: string): unknown => {
    if (typeof value === "number" && key !== undefined && TIME_KEYS.has(key)) return 0;
    if (typeof value === "string" && key === "slug") return "<slug>"; // random words per session
    if (typeof value === "string") {
      if (HASH.test(value)) return "<hash>";
      return value
        .replace(ID, (id, prefix: string) => idFor(id, prefix))
        .replace(ISO_DATE, "<date>")
        .replace(HTTP_DATE, "<date>")
        .replace(LOCAL_PORT, "$1:<port>");
    }
    if (Array.isArray(value)) return value.map((item) => clean(item));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([name, item]) => [
          name,
          // Everything under a "time" object is a timestamp.
          key === "time" && typeof item === "number" ? 0 : clean(item, name),
        ]),
      );
    }
    return value;
  };

  // Collect first, clean after: ids are numbered in the order of the view (calls, then each
  // stream by name), never in the arrival order, which varies between runs.
  const calls: { call: unknown; answer?: unknown }[] = [];
  const streams: Record<string, unknown[]> = {};
  const open: { operation: string; index: number }[] = [];
  for (const entry of entries) {
    if (entry.type === "expect_outbound") {
      calls.push({ call: entry.frame });
      open.push({ operation: entry.frame.type, index: calls.length - 1 });
    } else if (entry.type === "emit_inbound" && entry.frame.type === "sdk.response") {
      const operation = entry.frame.operation;
      const at = open.findIndex((call) => call.operation === operation);
      const [call] = at === -1 ? [] : open.splice(at, 1);
      const target = call === undefined ? undefined : calls[call.index];
      if (target) target.answer = entry.frame.data;
    } else if (entry.type === "emit_inbound" && entry.frame.type === "sdk.event") {
      const event = entry.frame.event as { type?: unknown; properties?: unknown };
      if (typeof event?.type === "string" && volatile.has(event.type)) continue;
      const name = entry.frame.stream ?? "events";
      const stream = isSummaryEvent(event) ? `${name}#summary` : name;
      streams[stream] ??= [];
      streams[stream].push(entry.frame.event);
    }
  }
  const result: NormalizedTranscript = {
    calls: calls.map(({ call, answer }) => ({
      call: clean(call),
      ...(answer === undefined ? {} : { answer: clean(answer) }),
    })),
    streams: {},
  };
  for (const name of Object.keys(streams).sort()) {
    result.streams[name] = (streams[name] ?? []).map((event) => clean(withoutStepFigures(event)));
  }
  return result;
}
