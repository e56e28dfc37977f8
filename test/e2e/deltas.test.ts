/**
 * End to end: the delta rule (docs/events.md) on the real 1.18.33 binary and the scripted
 * model, on both serve surfaces. For every text, reasoning and tool-input part of a turn, the
 * deltas `turn.events()` hands out all come before the part's `*.ended`, and joined they are
 * the ended value exactly. On `serve` the deltas come on the live stream and the ends on the
 * durable one, so a burst easily has its deltas land after its end: the bridge holds the end.
 * When the live stream drops during a part, its deltas are lost upstream: the end is not held,
 * and `session.stats()` counts the loss (a lost tail is made up as one delta from the end).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  echoCall,
  LONG_PART_DELTAS_IN_TESTS,
  longPartPrompt,
  type PartKind,
  partsOf,
  partsOfKind,
  summary,
} from "../../bench/reliability/long-parts/parts.js";
import type { BackendKind } from "../../src/backends/backend.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import { type BridgeBehindProxy, startBridgeBehindProxy } from "../support/bridge-behind-proxy.js";
import { attachBridge, useBridgeServer } from "../support/shared-real-server.js";
import { collectTurn } from "../support/turn-events.js";

/** 30 code points: CJK, emoji (one with a skin-tone modifier), letters with combining marks. */
const MULTIBYTE = "漢字かな交じり文🙂👍🏽🎉e\u0301a\u0308o\u0302n\u0303ü中文테스트終わり。";

type Annotate = (note: string) => Promise<unknown>;

/**
 * Runs `prompt` as one turn and checks the rule for every part of `kind` (there must be one).
 * The rule holds while the live stream stays connected; a long turn on a loaded machine may
 * see it reconnect (OpenCode 1.18.33 was seen to go silent for 30 s, which the reader takes
 * for a dead stream). Given `annotate`, such a turn is only checked for order (no delta after
 * its part's end) and the reconnect is written down; without it, a reconnect fails the test.
 */
async function expectWholeDeltas(
  session: Session,
  prompt: string,
  kind: PartKind,
  annotate?: Annotate,
) {
  const turn = await session.send(prompt, { delivery: "queue" });
  const events = await collectTurn(turn);
  expect(await turn.done()).toMatchObject({ outcome: "completed" });
  const parts = partsOfKind(partsOf(events), kind);
  expect(parts.size).toBeGreaterThan(0);
  const { liveReconnects, completedParts } = session.stats().deltas;
  if (annotate !== undefined && liveReconnects > 0) {
    await annotate(`the live stream reconnected ${liveReconnects} time(s): order checked only`);
    for (const part of parts.values()) expect(part.lateDeltas).toBe(0);
    return { events, parts };
  }
  if (annotate !== undefined && completedParts > 0) {
    await annotate(`${completedParts} part(s) had their last deltas made from the end`);
  }
  for (const [key, part] of parts) {
    // One comparison of a short summary: a failure says what went wrong without printing
    // a thousand deltas.
    const joined = part.deltas.join("");
    expect({ key, ...summary(joined, part.ended), late: part.lateDeltas }).toEqual({
      key,
      ...summary(part.ended ?? "", part.ended),
      late: 0,
    });
  }
  return { events, parts };
}

/** Both surfaces read one server: the tests neither stop nor reconfigure it. */
const real = useBridgeServer();
/** Deltas in a long part (`npm run reliability -- --only long-parts` runs 10,000). */
const LONG = LONG_PART_DELTAS_IN_TESTS;
const long = LONG.toLocaleString("en");

describe.each<BackendKind>(["serve", "serve-legacy"])("deltas on %s", (backend) => {
  let bridge: Bridge;

  beforeAll(async () => {
    bridge = await attachBridge(real(), { backend });
  });
  // A test that failed or timed out must not leave its turn streaming upstream: the next
  // test's calls would queue behind thousands of deltas on the same server (seen on a loaded
  // machine: one slow 10,000-delta turn made the next two tests time out creating sessions).
  const opened: Session[] = [];
  const open = async (title: string): Promise<Session> => {
    const session = await bridge.createSession({ title });
    opened.push(session);
    return session;
  };
  afterEach(async () => {
    for (const session of opened.splice(0)) {
      if (session.runningTurn !== undefined) {
        await session.interrupt({ signal: AbortSignal.timeout(10_000) }).catch(() => {});
      }
      await session.close();
    }
  });
  afterAll(async () => {
    await bridge?.close();
  });

  const noLoss = { completedParts: 0, incompleteParts: 0, droppedDeltas: 0, liveReconnects: 0 };
  /**
   * A long part on a loaded machine may have its last deltas made from its end
   * (`completedParts`): OpenCode's live stream can pause for longer than the catch-up's bound.
   * The deltas still join to the value, which `expectWholeDeltas` checks; the bursts, whose
   * deltas trail their ends on most runs, show that the ends are held (with the hold switched
   * off they fail on `completedParts`).
   */
  const expectNothingLost = (session: Session) => {
    const deltas = session.stats().deltas;
    if (deltas.liveReconnects === 0) {
      expect(deltas).toMatchObject({ incompleteParts: 0, droppedDeltas: 0 });
    }
  };

  it("a reply of 30 multibyte characters in one burst: every delta, before the end", async () => {
    expect(Array.from(MULTIBYTE)).toHaveLength(30);
    const session = await open("text burst");
    const { parts } = await expectWholeDeltas(
      session,
      `[[chunks 10]] [[reply ${MULTIBYTE}]]`,
      "text",
    );
    const [part] = parts.values();
    expect(part?.ended).toBe(MULTIBYTE);
    expect(part?.deltas.length).toBeGreaterThan(1);
    expect(session.stats().deltas).toEqual(noLoss);
    await session.close();
  });

  it(`a reply of ${long} deltas: all of them, before the end`, async ({ annotate }) => {
    const session = await open(`text ${long}`);
    const prompt = longPartPrompt("text", LONG);
    const { parts } = await expectWholeDeltas(session, prompt, "text", annotate);
    const [part] = parts.values();
    expect(part?.ended?.endsWith(` tok${LONG}`)).toBe(true);
    expectNothingLost(session);
    await session.close();
  });

  it("reasoning in a multibyte burst", async () => {
    const session = await open("reasoning burst");
    const prompt = `[[chunks 10]] [[reasoning ${MULTIBYTE}]] [[reply done]]`;
    const { parts } = await expectWholeDeltas(session, prompt, "reasoning");
    expect([...parts.values()][0]?.ended).toBe(MULTIBYTE);
    expect(session.stats().deltas).toEqual(noLoss);
    await session.close();
  });

  it(`reasoning in ${long} deltas`, async ({ annotate }) => {
    const session = await open(`reasoning ${long}`);
    const prompt = longPartPrompt("reasoning", LONG);
    const { parts } = await expectWholeDeltas(session, prompt, "reasoning", annotate);
    const [part] = parts.values();
    expect(part?.ended === "思".repeat(LONG)).toBe(true);
    expectNothingLost(session);
    await session.close();
  });

  // The legacy surface streams no tool input: its `tool.input.ended` is the parsed input again.
  const toolInputDeltas = backend === "serve";
  const call = echoCall;

  it.runIf(toolInputDeltas)("tool input in a multibyte burst", async () => {
    const session = await open("tool input burst");
    await expectWholeDeltas(session, `[[chunks 10]] ${call(MULTIBYTE)}`, "tool.input");
    expect(session.stats().deltas).toEqual(noLoss);
    await session.close();
  });

  it.runIf(toolInputDeltas)(`tool input in ${long} deltas`, async ({ annotate }) => {
    const session = await open(`tool input ${long}`);
    const prompt = longPartPrompt("tool.input", LONG);
    await expectWholeDeltas(session, prompt, "tool.input", annotate);
    expectNothingLost(session);
    await session.close();
  });

  it.runIf(!toolInputDeltas)("no tool input deltas, the whole input at its end", async () => {
    const session = await open("tool input");
    const turn = await session.send(`[[chunks 10]] ${call(MULTIBYTE)}`, { delivery: "queue" });
    const events = await collectTurn(turn);
    expect(events.filter((event) => event.type === "tool.input.delta")).toEqual([]);
    const ended = events.find((event) => event.type === "tool.input.ended");
    expect(ended?.data).toMatchObject({
      input: JSON.stringify({ command: `echo ${MULTIBYTE}`, description: "echo" }),
    });
    await session.close();
  });
});

describe("deltas on serve when the live stream drops mid-part", () => {
  let setup: BridgeBehindProxy;
  beforeAll(async () => {
    setup = await startBridgeBehindProxy();
  });
  afterAll(() => setup?.close());

  it("ends the part without waiting, its deltas still joined to its text, and counts the cut", async () => {
    const session = await setup.bridge.createSession({ title: "cut" });
    const turn = await session.send("[[slow 30 60]]", { delivery: "queue" });
    const events: CanonicalEvent[] = [];
    let cut = 0;
    for await (const event of turn.events()) {
      events.push(event);
      if (event.type === "text.delta" && cut === 0 && events.length > 8) cut = setup.proxy.cut();
    }
    expect(cut).toBeGreaterThan(0);
    const result = await turn.done();
    const text = Array.from({ length: 30 }, (_, index) => `tok${index + 1}`).join(" ");
    expect(result).toMatchObject({ outcome: "completed", text });
    const [part] = partsOf(events).values();
    expect(part?.ended).toBe(text);
    expect(part?.lateDeltas).toBe(0);
    // Deltas sent while the live stream was away are gone upstream: the part's later live
    // deltas would follow a hole, so the rest of it goes out from its end instead.
    expect(part?.deltas.join("")).toBe(text);
    const { completedParts, incompleteParts, liveReconnects } = session.stats().deltas;
    expect({ completedParts, incompleteParts, liveReconnects }).toEqual({
      completedParts: 1,
      incompleteParts: 0,
      liveReconnects: 1,
    });
    await session.close();
  });
});
