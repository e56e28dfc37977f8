/**
 * `waitForModel` against a stand-in client that plays the catalog states 1.18.33 goes through
 * while it loads (seen on the real server): empty, then the whole models.dev database without
 * the config's providers, then the final list. Only the last may refuse a model.
 */
import { describe, expect, it } from "vitest";
import { OpencodeApiError, TimeoutError, UnknownModelError } from "../errors.js";
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

/** What 1.18.33's provider route answers for a provider its catalog does not have (yet). */
const providerNotFound = (providerID: string) =>
  new OpencodeApiError({
    status: 404,
    errorName: "ProviderNotFoundError",
    message: `Provider not found: ${providerID}`,
    body: { _tag: "ProviderNotFoundError", providerID },
    url: `http://127.0.0.1/api/provider/${providerID}`,
  });

/**
 * A client whose catalog goes through `states` (the last one stays), one per poll. Its
 * provider route finds a provider after `providerAfter` asks (by default at once).
 */
function clientWith(states: unknown[][], legacy: () => Promise<unknown>, providerAfter = 0) {
  let polls = 0;
  let providerAsks = 0;
  const client = {
    v2: {
      model: {
        list: async () => states[Math.min(polls++, states.length - 1)],
      },
      provider: {
        get: async ({ providerID }: { providerID: string }) => {
          if (providerAsks++ < providerAfter) throw providerNotFound(providerID);
          return { id: providerID };
        },
      },
    },
    config: { providers: legacy },
  } as unknown as OpencodeClient;
  return { client, polls: () => polls, providerAsks: () => providerAsks };
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

  it("lists the catalog only once the provider route has the provider", async () => {
    // The legacy catalog answers late, as on a cold server: the provider route decides.
    const { client, polls, providerAsks } = clientWith([FINAL], () => new Promise(() => {}), 3);
    await waitForModel(client, { providerID: "demo", id: "demo-1" }, { intervalMs: 1 });
    expect(providerAsks()).toBe(4);
    expect(polls()).toBe(1); // never the big models.dev state
  });

  it("lists the catalog as before when the provider route is not the catalog's", async () => {
    const { client, polls } = clientWith([[], RAW, FINAL], async () => LEGACY);
    (client.v2.provider as { get: () => Promise<never> }).get = async () => {
      throw new OpencodeApiError({
        status: 404,
        errorName: "HTTP 404",
        message: "no route",
        body: undefined,
        url: "http://127.0.0.1/api/provider/demo",
      });
    };
    await waitForModel(client, { providerID: "demo", id: "demo-2" }, { intervalMs: 1 });
    expect(polls()).toBe(3);
  });
});
