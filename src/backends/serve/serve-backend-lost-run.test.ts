/**
 * server-sigkill finding 3, through the real serve backend on hand-fed streams: the server is
 * SIGKILLed just after it delivered an input (`prompted`) and before its first step; the
 * runtime abandons that turn at the crash, and the durable stream reads the `prompted` only
 * after the restart. The next queued input, which the restarted server runs, must start its
 * own turn (before the fix it joined the dead run: its events went out under the abandoned
 * turn's id, and its own turn ended `stalled`).
 */
import { afterEach, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { ServeBackend } from "./serve-backend.js";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

it("a queued input run after a restart starts its own turn, not the dead run's", async () => {
  // A recorded text turn: admitted, prompted, a step with its text, the step's end.
  const turn = recordedEvents("api-text-turn", "v2.session.events");
  const first = turn[0] as { data: { sessionID: string; messageID: string } };
  const { sessionID } = first.data;
  const next = first.data.messageID;
  const dead = "msg_0000000000aaDeadRunInput01";
  const input = (type: string) => ({
    id: `evt_${type}`,
    type,
    data: { timestamp: 1, sessionID, messageID: dead, prompt: { text: "x" }, delivery: "queue" },
  });

  const transport = new HandFedTransport();
  const { backend, published, until } = handFedServeBackend(transport, sessionID);
  backends.push(backend);
  transport.feed("v2.session.events", [input("session.next.prompt.admitted")]);
  await transport.drained("v2.session.events");
  await backend.abandonTurn(); // the crash: the runtime ends the dead input's turn
  transport.feed("v2.session.events", [input("session.next.prompted"), ...turn]);
  await until("waiting for the next input's step to end", () =>
    published.some((event) => event.type === "step.ended"),
  );
  const step = published.find((event) => event.type === "step.started");
  expect(step?.turnId).toBe(turnIdFor(next));
  expect(
    published.filter((event) => event.type === "turn.started").map((event) => event.turnId),
  ).toEqual([turnIdFor(dead), turnIdFor(next)]);
});
