/**
 * End to end: a server that is starting takes connections and never answers them (measured on
 * 1.18.33: an `/api/event` request made in the half second before it is ready hangs until its
 * client gives up). A bridge attached to a server restarted on its port reconnects its streams
 * on their own backoff, and one attempt can land in that window: the session then stayed
 * "reconnecting" for the whole header bound (30 s) while the server answered, a send waited
 * out its 15 s for the live stream and went out blind, and a running turn's events waited for
 * the durable stream's own bound (a clean clone's CI failed on it, in reconnect.test.ts).
 *
 * Here a proxy in front of a real server stands for the window: it refuses (the server is
 * away), then takes connections and answers none (starting), then passes them on (ready),
 * while the server itself runs on and finishes the turn that was running. A send made then
 * finds the session's streams back: the live stream tries again at once when a prompt waits
 * for it, its connection reconnects the durable stream still hanging, and the running turn
 * ends as it ended upstream.
 */
import { describe, expect, it, vi } from "vitest";
import { startBridgeBehindProxy } from "../support/bridge-behind-proxy.js";
import { untilTurnEvent } from "../support/turn-events.js";
import { within } from "../support/within.js";

const MODEL = { providerID: "demo", modelID: "demo-1" };
/** A turn that streams for a few seconds: it is mid-way when the server goes away. */
const SLOW = "[[slow 40 80]]";
const SLOW_TEXT = Array.from({ length: 40 }, (_, index) => `tok${index + 1}`).join(" ");

describe("a connection a starting server took and never answers", () => {
  it("does not keep a session from its server once the server answers", async () => {
    const setup = await startBridgeBehindProxy({ model: MODEL, store: ":memory:" });
    const { bridge, proxy } = setup;
    try {
      const running = await bridge.createSession({ title: "a turn runs through the outage" });
      const other = await bridge.createSession({ title: "sends once the server is back" });
      const warm = await other.send("[[reply ready]]", { delivery: "queue" });
      expect(await within(warm.done(), "a first turn", 60_000)).toMatchObject({
        outcome: "completed",
      });
      const turn = await running.send(SLOW, { delivery: "queue" });
      await untilTurnEvent(turn, (event) => event.type === "text.delta");

      await proxy.refuse();
      await vi.waitFor(() => expect(running.connection.state).toBe("reconnecting"), {
        timeout: 15_000,
      });
      await proxy.stall();
      // Both of the running session's streams try again, into the window, and hang there.
      const durablePath = `/api/session/${running.upstreamId}/event`;
      await vi.waitFor(
        () => {
          const paths = proxy.stalled().map((connection) => connection.path ?? "");
          expect(paths.some((path) => path.startsWith("/api/event"))).toBe(true);
          expect(paths.some((path) => path.startsWith(durablePath))).toBe(true);
        },
        { timeout: 30_000, interval: 50 },
      );
      await proxy.resume();

      // The send does not wait out the hanging attempt: the live stream is back before it goes.
      const next = await other.send("[[reply back again]]", { delivery: "queue" });
      expect(other.connection.state).toBe("connected");
      expect(running.connection.state).toBe("connected");
      expect(
        await within(next.done(), "the turn sent once the server is back", 60_000),
      ).toMatchObject({ outcome: "completed", text: "back again" });
      // The running turn's end is heard on the durable stream, which connected again too.
      expect(
        await within(turn.done(), "the turn that ran through the outage", 60_000),
      ).toMatchObject({ outcome: "completed", text: SLOW_TEXT });
      // The hanging connections were given up, not left to their bound.
      expect(proxy.stalled()).toEqual([]);
    } finally {
      await setup.close();
    }
  }, 180_000);
});
