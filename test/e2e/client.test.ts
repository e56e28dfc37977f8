/**
 * End to end: the typed client against the real `opencode` 1.18.33 binary, with the scripted
 * model as its provider. Nothing here is mocked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AbortError, OpencodeApiError } from "../../src/errors.js";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import { waitForModel } from "../../src/opencode-client/wait-for-model.js";
import type { ApiEvent } from "../../src/opencode-protocol/api/events.js";
import type { Parsed } from "../../src/opencode-protocol/common.js";
import type { LegacyEvent } from "../../src/opencode-protocol/legacy/events.js";
import { HttpTransport } from "../../src/transport/http-transport.js";
import { type RealServer, startRealServer } from "../support/real-server.js";
import { collectUntil, consumeInBackground } from "../support/streams.js";

let real: RealServer;
beforeAll(async () => {
  real = await startRealServer();
});
afterAll(async () => {
  await real?.close();
});

const MODEL = { providerID: "demo", modelID: "demo-1" };

describe("the real server", () => {
  it("answers health on both surfaces", async () => {
    expect(await real.client.global.health()).toMatchObject({ healthy: true, version: "1.18.33" });
    expect(await real.client.v2.health.get()).toMatchObject({ healthy: true });
  });

  it("answers 401 without the password, surfaced as OpencodeApiError", async () => {
    const anonymous = new OpencodeClient(new HttpTransport({ url: real.server.url }));
    const error = await anonymous.global.health().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpencodeApiError);
    expect(error).toMatchObject({ status: 401, retryable: false });
    const wrong = new OpencodeClient(new HttpTransport({ url: real.server.url, password: "nope" }));
    await expect(wrong.v2.session.active()).rejects.toMatchObject({ status: 401 });
  });

  it("runs a legacy turn: deltas on /event add up to the final text part", async () => {
    const session = await real.client.session.create({ title: "legacy e2e" });
    expect(session.directory).toBe(real.directory);

    const controller = new AbortController();
    const events = consumeInBackground(real.client.event.subscribe({ signal: controller.signal }));
    expect((await events.first).event.type).toBe("server.connected");

    await real.client.session.promptAsync({
      sessionID: session.id,
      model: MODEL,
      parts: [{ type: "text", text: "[[slow 6 20]]" }],
    });
    const mine = (item: Parsed<LegacyEvent>) =>
      "properties" in item.event &&
      (item.event.properties as { sessionID?: string }).sessionID === session.id;
    await events.until((items) =>
      items.some((item) => mine(item) && item.event.type === "session.idle"),
    );
    controller.abort();
    await expect(events.finished).rejects.toBeInstanceOf(AbortError);

    const known = events.items.filter(mine).flatMap((item) => (item.known ? [item.event] : []));
    const deltas = known.flatMap((event) =>
      event.type === "message.part.delta" ? [event.properties.delta] : [],
    );
    const finalTexts = known.flatMap((event) =>
      event.type === "message.part.updated" &&
      event.properties.part.type === "text" &&
      event.properties.part.time?.end !== undefined
        ? [event.properties.part.text]
        : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(finalTexts.at(-1)).toBe("tok1 tok2 tok3 tok4 tok5 tok6");
    expect(deltas.join("")).toBe(finalTexts.at(-1));

    const messages = await real.client.session.messages({ sessionID: session.id });
    expect(messages.map((message) => message.info.role)).toEqual(["user", "assistant"]);
  });

  it("runs a blocking legacy prompt that returns the assistant message", async () => {
    const session = await real.client.session.create({});
    const reply = await real.client.session.prompt({
      sessionID: session.id,
      model: MODEL,
      parts: [{ type: "text", text: "[[reply blocking works]]" }],
    });
    expect(reply.info.role).toBe("assistant");
    expect(reply.parts.flatMap((part) => (part.type === "text" ? [part.text] : []))).toEqual([
      "blocking works",
    ]);
  });

  it("runs an /api turn: live deltas add up to the durable text.ended", async () => {
    await waitForModel(real.client, { providerID: "demo", id: "demo-1" });
    const session = await real.client.v2.session.create({
      model: { id: "demo-1", providerID: "demo" },
      location: { directory: real.directory },
    });
    expect(session.location.directory).toBe(real.directory);

    const controller = new AbortController();
    const live = consumeInBackground(real.client.v2.event.subscribe({ signal: controller.signal }));
    expect((await live.first).event.type).toBe("server.connected");

    const admitted = await real.client.v2.session.prompt({
      sessionID: session.id,
      prompt: { text: "[[slow 6 20]]" },
      delivery: "queue",
    });
    expect(admitted).toMatchObject({ sessionID: session.id, delivery: "queue" });

    const durable = await collectUntil(
      real.client.v2.session.events({ sessionID: session.id, after: 0 }),
      (item) => item.known && item.event.type === "session.next.step.ended",
    );
    const types = durable.map((item) => item.event.type);
    expect(types.slice(0, 3)).toEqual([
      "session.next.prompt.admitted",
      "session.next.prompted",
      "session.next.step.started",
    ]);
    expect(durable.every((item) => item.known)).toBe(true);
    const seqs = durable.map((item) => (item.event as ApiEvent).durable?.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
    const ended = durable.flatMap((item) =>
      item.known && item.event.type === "session.next.text.ended" ? [item.event.data.text] : [],
    );
    expect(ended).toEqual(["tok1 tok2 tok3 tok4 tok5 tok6"]);

    const mine = (item: Parsed<ApiEvent>) => item.known && item.event.data.sessionID === session.id;
    await live.until((items) =>
      items.some((item) => mine(item) && item.event.type === "session.next.step.ended"),
    );
    controller.abort();
    await expect(live.finished).rejects.toBeInstanceOf(AbortError);
    const deltas = live.items.flatMap((item) =>
      mine(item) && item.known && item.event.type === "session.next.text.delta"
        ? [item.event.data.delta]
        : [],
    );
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(ended[0]);

    // Resuming from a cursor yields only what came after it.
    const resumed = await collectUntil(
      real.client.v2.session.events({ sessionID: session.id, after: 4 }),
      (item) => item.event.type === "session.next.step.ended",
    );
    expect(resumed.map((item) => (item.event as ApiEvent).durable?.seq)[0]).toBe(5);
  });
});
