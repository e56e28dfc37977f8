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
  /** Event types left out because they come and go with timing (default: heartbeats). */
  volatileEvents?: readonly string[];
}

const ID = /\b(ses|msg|prt|evt|per|que|call|sh|pty|tool|toolu|chatcmpl)_[A-Za-z0-9]+/g;
const ISO_DATE = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const LOCAL_PORT = /(127\.0\.0\.1|localhost):\d+/g;
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
  const volatile = new Set(options.volatileEvents ?? ["server.heartbeat"]);
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
      const event = entry.frame.event as { type?: unknown };
      if (typeof event?.type === "string" && volatile.has(event.type)) continue;
      const stream = entry.frame.stream ?? "events";
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
    result.streams[name] = (streams[name] ?? []).map((event) => clean(event));
  }
  return result;
}
