/**
 * The parity scenarios: the same inputs on every backend, each returning the canonical events
 * of the turns it ran, for `paritySignature` to compare.
 */
import { setTimeout as delay } from "node:timers/promises";
import { expect } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import { collectTurn, untilTurnEvent } from "../support/turn-events.js";

export interface ParityScenario {
  name: string;
  run(bridge: Bridge): Promise<CanonicalEvent[][]>;
}

export const PARITY_SCENARIOS: readonly ParityScenario[] = [
  {
    name: "text",
    async run(bridge) {
      const session = await bridge.createSession({ title: "parity text" });
      const turn = await session.send("[[reply parity pong]]", { delivery: "queue" });
      const events = await collectTurn(turn);
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: "parity pong" });
      await session.close();
      return [events];
    },
  },
  {
    name: "tool",
    async run(bridge) {
      const session = await bridge.createSession({ title: "parity tool" });
      const turn = await session.send(
        '[[tool bash {"command":"echo parity","description":"say parity"}]] [[then tool done]]',
        { delivery: "queue" },
      );
      const events = await collectTurn(turn);
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: "tool done" });
      await session.close();
      return [events];
    },
  },
  {
    name: "interrupt",
    async run(bridge) {
      const session = await bridge.createSession({ title: "parity interrupt" });
      const turn = await session.send(
        '[[tool bash {"command":"sleep 30","description":"wait"}]] [[then never]]',
        { delivery: "queue" },
      );
      await untilTurnEvent(turn, (event) => event.type === "step.started");
      // Let the tool start: the subprocess backend prints a tool only once it has settled.
      await delay(1_500);
      await session.interrupt();
      const events = await collectTurn(turn);
      expect(await turn.done()).toMatchObject({ outcome: "interrupted" });
      const next = await session.send("[[reply after]]", { delivery: "queue" });
      const nextEvents = await collectTurn(next);
      expect(await next.done()).toMatchObject({ outcome: "completed", text: "after" });
      await session.close();
      return [events, nextEvents];
    },
  },
  {
    name: "queue of two",
    async run(bridge) {
      const session = await bridge.createSession({ title: "parity queue" });
      const first = await session.send("[[slow 3 150]]", { delivery: "queue" });
      const second = await session.send("[[reply second]]", { delivery: "queue" });
      expect(second).not.toBe(first);
      const [firstEvents, secondEvents] = await Promise.all([
        collectTurn(first),
        collectTurn(second),
      ]);
      expect(await first.done()).toMatchObject({ outcome: "completed", text: "tok1 tok2 tok3" });
      expect(await second.done()).toMatchObject({ outcome: "completed", text: "second" });
      const firstEnd = firstEvents.at(-1)?.seq ?? 0;
      const secondStart = secondEvents.find((event) => event.type === "turn.started")?.seq ?? 0;
      expect(secondStart).toBeGreaterThan(firstEnd);
      await session.close();
      return [firstEvents, secondEvents];
    },
  },
  {
    name: "provider error",
    async run(bridge) {
      const session = await bridge.createSession({ title: "parity error" });
      const turn = await session.send(
        '[[error 400 {"error":{"message":"parity bad request","type":"invalid_request_error"}}]]',
        { delivery: "queue" },
      );
      const events = await collectTurn(turn);
      const result = await turn.done();
      expect(result.outcome).toBe("failed");
      expect(result.error?.message).toContain("parity bad request");
      await session.close();
      return [events];
    },
  },
];
