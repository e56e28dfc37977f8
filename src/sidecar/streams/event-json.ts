/**
 * An event's JSON, made once however many clients it goes to: the feed hands the same event
 * object to every subscriber, so a session followed by a hundred clients is serialised once
 * per event, not a hundred times.
 */
import type { CanonicalEvent } from "../../events/canonical.js";

const made = new WeakMap<CanonicalEvent, string>();

export function eventJson(event: CanonicalEvent): string {
  let json = made.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    made.set(event, json);
  }
  return json;
}

/** The WebSocket `event` message, `{type:"event",sessionId,event}`, around the event's JSON. */
export function eventMessageJson(sessionId: string, event: CanonicalEvent): string {
  return `{"type":"event","sessionId":${JSON.stringify(sessionId)},"event":${eventJson(event)}}`;
}
