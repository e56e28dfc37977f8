/** `ocb run` follows the session's connection changes: live ones only, nothing else, until told to stop. */
import { describe, expect, it } from "vitest";
import { canonical } from "../events/build.js";
import type { CanonicalEvent } from "../events/canonical.js";
import { EventLog } from "../runtime/session/event-log.js";
import { followConnection } from "./follow-connection.js";

let made = 0;
function origin(turnId: string | undefined) {
  const n = ++made;
  return {
    sessionId: "ocb_1",
    turnId,
    at: n,
    native: { backend: "serve" as const, type: "test", id: `evt_${n}` },
  };
}
const lost = (attempt: number) =>
  canonical(origin(undefined), 0, "connection.changed", {
    state: "reconnecting",
    since: 1,
    attempt,
  });
const text = () => canonical(origin("turn_1"), 0, "text.ended", { partId: "p", text: "hi" });

describe("followConnection", () => {
  it("shows the connection changes that come while it follows, and nothing before or else", async () => {
    const log = new EventLog();
    log.append(text());
    log.append(lost(1)); // before the turn streams: not shown again
    const shown: CanonicalEvent[] = [];
    const stop = new AbortController();
    const following = followConnection(
      { events: (options) => log.read(options?.after, options?.signal) },
      (event) => shown.push(event),
      stop.signal,
    );
    log.append(text());
    log.append(lost(2));
    log.append(lost(3));
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    await following;
    expect(shown.map((event) => event.type === "connection.changed" && event.data.attempt)).toEqual(
      [2, 3],
    );
  });
});
