/** Comparing the durable events of two runs of the same script. */
import type { CanonicalEvent } from "../../src/events/canonical.js";

/**
 * The durable events as type and data, without what differs between runs: ids (renamed in
 * order of appearance), times, seqs and native origins. Ephemeral events are left out.
 */
export function comparableEvents(events: readonly CanonicalEvent[]): unknown[] {
  const ids = new Map<string, string>();
  const rename = (text: string) =>
    text.replace(/\b(ses|msg|evt|call|turn_msg)_[A-Za-z0-9]+/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size + 1}>`);
      return ids.get(id) ?? id;
    });
  return events
    .filter((event) => event.durable)
    .map((event) => JSON.parse(rename(JSON.stringify({ type: event.type, data: event.data }))));
}
