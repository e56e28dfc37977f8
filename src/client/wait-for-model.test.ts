/**
 * `waitForModel` against a stand-in client that plays the catalog states 1.18.33 goes through
 * while it loads (seen on the real server): empty, then the whole models.dev database without
 * the config's providers, then the final list. Only the last may refuse a model.
 */
import { describe, expect, it } from "vitest";
import { TimeoutError, UnknownModelError } from "../errors.js";
import type { OpencodeClient } from "./opencode-client.js";
import { waitForModel } from "./wait-for-model.js";

const entry = (providerID: string, id: string) => ({ providerID, id });
const RAW = [
  entry("anthropic", "claude-x"),
  entry("opencode", "big-pickle"),
  entry("openai", "o9"),
];
const FINAL = [entry("opencode", "big-pickle"), entry("demo", "demo-1"), entry("demo", "demo-2")];
const LEGACY = {
  providers: [
    { id: "opencode", models: { "big-pickle": {} } },
    { id: "demo", models: { "demo-1": {}, "demo-2": {} } },
  ],
};

/** A client whose catalog goes through `states` (the last one stays), one per poll. */
function clientWith(states: unknown[][], legacy: () => Promise<unknown>) {
  let polls = 0;
  const client = {
    v2: {
      model: {
        list: async () => states[Math.min(polls++, states.length - 1)],
      },
    },
    config: { providers: legacy },
  } as unknown as OpencodeClient;
  return { client, polls: () => polls };
}

describe("waitForModel", () => {
  it("does not refuse while the catalog is still partial, and refuses once it has loaded", async () => {
    const { client, polls } = clientWith([[], [], RAW, RAW, RAW, FINAL], async () => LEGACY);
    const waiting = waitForModel(client, { providerID: "demo", id: "demo-l" }, { intervalMs: 1 });
    await expect(waiting).rejects.toBeInstanceOf(UnknownModelError);
    await expect(waiting).rejects.toThrow(/closest: demo\/demo-1, demo\/demo-2/);
    expect(polls()).toBe(6);
  });

  it("waits for a model the loaded catalog will list", async () => {
    const { client } = clientWith([[], RAW, FINAL], async () => LEGACY);
    await waitForModel(client, { providerID: "demo", id: "demo-2" }, { intervalMs: 1 });
  });

  it("only times out when the legacy catalog cannot be had", async () => {
    const { client } = clientWith([FINAL], async () => {
      throw new Error("404");
    });
    const waiting = waitForModel(
      client,
      { providerID: "demo", id: "demo-l" },
      { intervalMs: 1, timeoutMs: 50 },
    );
    await expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    await expect(waiting).rejects.toThrow(/closest: demo\/demo-1/);
  });
});
