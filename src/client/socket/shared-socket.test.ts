/**
 * The client's subscriptions against a small in-process WebSocket server (test/support/
 * fake-sidecar-socket.ts): one shared socket, reconnect with backoff, resume after the last
 * durable seq taken (none lost, none twice), the subscribe barrier, slow readers, heartbeats.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  durable,
  ephemeral,
  FakeSidecar,
  type FakeSidecarOptions,
} from "../../../test/support/fake-sidecar-socket.js";
import { within } from "../../../test/support/within.js";
import { NodeWebSocket } from "../../../test/support/ws.js";
import type { CanonicalEvent } from "../../events/canonical.js";
import { BridgeClient, type BridgeClientOptions } from "../bridge-client.js";
import { BridgeAbortError, BridgeApiError } from "../errors.js";
import type { Subscription } from "./event-subscription.js";

const servers: FakeSidecar[] = [];
const clients: BridgeClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const server of servers.splice(0)) await server.close();
});

async function setup(
  fakeOptions: FakeSidecarOptions = {},
  socket: BridgeClientOptions["socket"] = {},
): Promise<{ fake: FakeSidecar; client: BridgeClient }> {
  const fake = await FakeSidecar.start(fakeOptions);
  servers.push(fake);
  const client = new BridgeClient({
    url: fake.url,
    token: fake.token,
    WebSocket: NodeWebSocket,
    socket: { backoff: { initialMs: 5, maxMs: 40 }, ...socket },
  });
  clients.push(client);
  return { fake, client };
}

/** Reads `subscription` in the background; `until` resolves once `done` holds for what was read. */
function reader(subscription: Subscription) {
  const events: CanonicalEvent[] = [];
  let check: (() => void) | undefined;
  const reading = (async () => {
    for await (const event of subscription) {
      events.push(event);
      check?.();
    }
  })();
  reading.catch(() => {});
  return {
    events,
    reading,
    until(done: (events: CanonicalEvent[]) => boolean, what: string): Promise<void> {
      return within(
        new Promise<void>((resolve, reject) => {
          check = () => done(events) && resolve();
          reading.then(() => reject(new Error(`the subscription ended before ${what}`)), reject);
          check();
        }),
        what,
      );
    },
  };
}

const durableTexts = (events: CanonicalEvent[]) =>
  events.filter((event) => event.durable).map((event) => (event.data as { text: string }).text);
const seqs = (events: CanonicalEvent[]) =>
  events.filter((event) => event.durable).map((event) => event.seq);

describe("subscribe", () => {
  it("reads the kept events after `after`, says when it is caught up, then live ones", async () => {
    const { fake, client } = await setup();
    for (const text of ["a", "b", "c"]) fake.append("ses_1", durable(text));
    const subscription = client.subscribe("ses_1", { after: 1 });
    const read = reader(subscription);
    expect(await within(subscription.caughtUp, "caught up")).toBe(3);
    fake.append("ses_1", ephemeral("d…"));
    fake.append("ses_1", durable("d"));
    await read.until((events) => events.length === 4, "4 events");
    expect(read.events.map((event) => event.type)).toEqual([
      "text.ended",
      "text.ended",
      "text.delta",
      "text.ended",
    ]);
    expect(durableTexts(read.events)).toEqual(["b", "c", "d"]);
    expect(fake.subscribes).toEqual([{ sessionId: "ses_1", after: 1 }]);
  });

  it("says as lastSeq the seq of the last durable event handed out, not of one still buffered", async () => {
    const { fake, client } = await setup();
    for (const text of ["a", "b", "c"]) fake.append("ses_1", durable(text));
    const subscription = client.subscribe("ses_1", { after: 1 });
    await within(subscription.caughtUp, "caught up");
    expect(subscription.lastSeq).toBe(1);
    const iterator = subscription[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.seq).toBe(2);
    expect(subscription.lastSeq).toBe(2);
    await iterator.return?.();
  });

  it("shares one socket between sessions, and closes it with the last subscription", async () => {
    const { fake, client } = await setup();
    const one = client.subscribe("ses_1");
    const two = client.subscribe("ses_2");
    await within(Promise.all([one.caughtUp, two.caughtUp]), "both caught up");
    expect(fake.connections).toBe(1);
    expect(client.connection.state.state).toBe("connected");
    one.close();
    expect(fake.openSockets).toBe(1);
    two.close();
    await within(
      waitFor(() => fake.openSockets === 0),
      "the socket's close",
    );
    await within(
      waitFor(() => client.connection.state.state === "idle"),
      "idle",
    );
  });

  it("a subscription closed while its socket is being opened leaves no socket behind", async () => {
    const { fake, client } = await setup();
    client.subscribe("ses_1").close();
    const later = client.subscribe("ses_2");
    await within(later.caughtUp, "the second caught up");
    later.close();
    await within(
      waitFor(() => fake.openSockets === 0),
      "no socket open",
    );
    await within(
      waitFor(() => client.connection.state.state === "idle"),
      "idle",
    );
    expect(fake.subscribes.map((subscribe) => subscribe.sessionId)).toEqual(["ses_2"]);
  });

  it("resumes after every cut from the last durable seq taken: none lost, none twice", async () => {
    const { fake, client } = await setup();
    const states: string[] = [];
    client.onConnectionChange((state) => states.push(state.state));
    const subscription = client.subscribe("ses_1");
    const read = reader(subscription);
    await within(subscription.caughtUp, "caught up");
    const expected: string[] = [];
    for (let round = 0; round < 20; round++) {
      for (let index = 0; index < 5; index++) {
        const text = `r${round}e${index}`;
        expected.push(text);
        fake.append("ses_1", durable(text));
        fake.append("ses_1", ephemeral(text));
      }
      // Cut at once after the appends: some of them are still in flight and lost with the socket.
      fake.cut();
      await within(
        waitFor(() => fake.connections === round + 2 && fake.openSockets === 1),
        `reconnect ${round + 1}`,
      );
    }
    await read.until((events) => durableTexts(events).length === expected.length, "every event");
    expect(durableTexts(read.events)).toEqual(expected);
    expect(seqs(read.events)).toEqual(expected.map((_, index) => index + 1));
    expect(fake.connections).toBe(21);
    // Each subscribe asked for what came after the last durable event taken by then.
    const afters = fake.subscribes.map((subscribe) => subscribe.after ?? -1);
    expect(afters[0]).toBe(0);
    expect(afters).toEqual([...afters].sort((a, b) => a - b));
    expect(afters.at(-1)).toBeGreaterThan(0);
    expect(states).toContain("reconnecting");
    // The server counts a socket before the client hears that it opened.
    await within(
      waitFor(() => states.at(-1) === "connected"),
      "connected again",
    );
  });

  it("takes no durable event twice from a server that replays from 0 on every subscribe", async () => {
    const { fake, client } = await setup({ ignoreAfter: true });
    fake.append("ses_1", durable("a"));
    fake.append("ses_1", durable("b"));
    const read = reader(client.subscribe("ses_1", { after: 1 }));
    await read.until((events) => events.length === 1, "b");
    fake.cut();
    await within(
      waitFor(() => fake.connections === 2 && fake.openSockets === 1),
      "reconnect",
    );
    fake.append("ses_1", durable("c"));
    await read.until((events) => events.length === 2, "c");
    expect(durableTexts(read.events)).toEqual(["b", "c"]);
  });

  it("a hole in the live seqs makes it subscribe again from its last seq: none lost, none twice", async () => {
    const { fake, client } = await setup();
    const read = reader(client.subscribe("ses_1", { after: 0 }));
    fake.append("ses_1", durable("a"));
    await read.until((events) => events.length === 1, "a");
    fake.append("ses_1", durable("b"), { lost: true });
    fake.append("ses_1", ephemeral("x"));
    fake.append("ses_1", durable("c"));
    await read.until((events) => seqs(events).length === 3, "b and c");
    expect(durableTexts(read.events)).toEqual(["a", "b", "c"]);
    expect(seqs(read.events)).toEqual([1, 2, 3]);
    expect(fake.subscribes.map((s) => s.after)).toEqual([0, 1]);
    expect(fake.connections).toBe(1);
  });

  it("a second reader of a session with an older `after` gets its events; the first none twice", async () => {
    const { fake, client } = await setup();
    for (const text of ["a", "b", "c"]) fake.append("ses_1", durable(text));
    const first = client.subscribe("ses_1", { after: 2 });
    const firstRead = reader(first);
    await within(first.caughtUp, "the first caught up");
    const second = client.subscribe("ses_1", { after: 0 });
    const secondRead = reader(second);
    await within(second.caughtUp, "the second caught up");
    fake.append("ses_1", durable("d"));
    await secondRead.until((events) => events.length === 4, "a to d");
    await firstRead.until((events) => events.length === 2, "c and d");
    expect(durableTexts(secondRead.events)).toEqual(["a", "b", "c", "d"]);
    expect(durableTexts(firstRead.events)).toEqual(["c", "d"]);
    // The barrier: unsubscribed, pinged, then subscribed again from the lower seq.
    expect(fake.subscribes.map((s) => s.after)).toEqual([2, 0]);
    expect(fake.connections).toBe(1);
  });

  it("an event of the old subscription still in flight does not reach a reader that joined older", async () => {
    const { fake, client } = await setup();
    for (const text of ["a", "b", "c"]) fake.append("ses_1", durable(text));
    const first = client.subscribe("ses_1", { after: 3 });
    const firstRead = reader(first);
    await within(first.caughtUp, "the first caught up");
    // Sent before the client has read it: it is on its way when the second reader joins.
    fake.append("ses_1", durable("d"));
    const secondRead = reader(client.subscribe("ses_1", { after: 0 }));
    await secondRead.until((events) => events.length === 4, "a to d");
    await firstRead.until((events) => events.length === 1, "d");
    expect(durableTexts(secondRead.events)).toEqual(["a", "b", "c", "d"]);
    expect(durableTexts(firstRead.events)).toEqual(["d"]);
  });

  it("a reader that falls behind detaches, then gets every durable event after its last seq", async () => {
    const { fake, client } = await setup({}, { bufferLimit: 5 });
    const subscription = client.subscribe("ses_1");
    await within(subscription.caughtUp, "caught up");
    const expected: string[] = [];
    for (let index = 0; index < 40; index++) {
      expected.push(`e${index}`);
      fake.append("ses_1", durable(`e${index}`));
      fake.append("ses_1", ephemeral(`e${index}`));
    }
    // Only now does anyone read: the buffer overflowed long ago.
    await within(
      waitFor(() => fake.subscribes.length === 1),
      "the first subscribe",
    );
    const read = reader(subscription);
    await read.until((events) => durableTexts(events).length === 40, "40 durable events");
    expect(durableTexts(read.events)).toEqual(expected);
    expect(fake.subscribes.length).toBeGreaterThan(1);
  });

  it("ends with the sidecar's error for an unknown session, others unharmed", async () => {
    const { fake, client } = await setup();
    fake.append("ses_1", durable("a"));
    const good = reader(client.subscribe("ses_1"));
    const bad = client.subscribe("missing_1");
    const error = await within(
      (async () => {
        try {
          for await (const _ of bad) {
          }
        } catch (caught) {
          return caught;
        }
      })(),
      "the unknown session's error",
    );
    expect(error).toBeInstanceOf(BridgeApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
    await good.until((events) => events.length === 1, "a");
    fake.append("ses_1", durable("b"));
    await good.until((events) => events.length === 2, "b");
  });

  it("a refused ticket (wrong token) ends the subscription with the 401, not a retry loop", async () => {
    const { fake, client } = await setup();
    fake.refuseTickets = 401;
    const subscription = client.subscribe("ses_1");
    await expect(
      within(
        (async () => {
          for await (const _ of subscription) {
          }
        })(),
        "the refusal",
      ),
    ).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(fake.connections).toBe(0);
  });

  it("keeps retrying while the sidecar is down (5xx), then resumes", async () => {
    const { fake, client } = await setup();
    fake.append("ses_1", durable("a"));
    const read = reader(client.subscribe("ses_1"));
    await read.until((events) => events.length === 1, "a");
    fake.refuseTickets = 503;
    fake.cut();
    await within(
      waitFor(() => client.connection.state.attempt >= 3),
      "three failed attempts",
    );
    expect(client.connection.state.state).toBe("reconnecting");
    fake.append("ses_1", durable("b"));
    fake.refuseTickets = undefined;
    await read.until((events) => events.length === 2, "b");
    expect(client.connection.state).toMatchObject({ state: "connected", attempt: 0 });
  });

  it("gives up a socket that stays silent (no pong) and reconnects", async () => {
    const { fake, client } = await setup(
      { silent: true },
      { heartbeatMs: 20, heartbeatTimeoutMs: 80 },
    );
    const reasons: string[] = [];
    client.connection.onChange((state) => reasons.push(`${state.state}: ${state.reason ?? ""}`));
    const subscription = client.subscribe("ses_1");
    await within(subscription.caughtUp, "caught up");
    await within(
      waitFor(() => fake.connections >= 2),
      "a second connection",
    );
    expect(reasons).toContain("reconnecting: nothing heard for 80 ms");
  });

  it("reconnects after the sidecar's shutdown close (1012) and its slow-consumer close (4008)", async () => {
    const { fake, client } = await setup();
    const read = reader(client.subscribe("ses_1"));
    fake.append("ses_1", durable("a"));
    await read.until((events) => events.length === 1, "a");
    fake.closeAll(1012, "sidecar stopping: resume from your last seq");
    await within(
      waitFor(() => fake.connections === 2 && fake.openSockets === 1),
      "reconnect",
    );
    fake.append("ses_1", durable("b"));
    // The sidecar names the seq to resume from to each subscription, then closes.
    fake.sendAll({
      type: "error",
      sessionId: "ses_1",
      error: { code: "slow_consumer", message: "slow consumer: resume from seq 2" },
    });
    fake.closeAll(4008, "slow consumer: resume from seq 2");
    await within(
      waitFor(() => fake.connections === 3 && fake.openSockets === 1),
      "reconnect",
    );
    fake.append("ses_1", durable("c"));
    await read.until((events) => events.length === 3, "c");
    expect(durableTexts(read.events)).toEqual(["a", "b", "c"]);
  });

  it("an aborted signal ends the iteration with BridgeAbortError", async () => {
    const { client } = await setup();
    const abort = new AbortController();
    const subscription = client.subscribe("ses_1", { signal: abort.signal });
    await within(subscription.caughtUp, "caught up");
    const reading = (async () => {
      for await (const _ of subscription) {
      }
    })();
    abort.abort();
    await expect(within(reading, "the end")).rejects.toBeInstanceOf(BridgeAbortError);
  });

  it("refuses a bad `after` and a client without WebSocket, saying what to do", async () => {
    const { client, fake } = await setup();
    expect(() => client.subscribe("ses_1", { after: -1 })).toThrow(/after must be/);
    expect(() => client.subscribe("")).toThrow(/session id is required/);
    const bare = new BridgeClient({ url: fake.url, token: "t" });
    expect(() => bare.subscribe("ses_1")).toThrow(/pass one/);
  });
});

/** Polls `condition` (the fake server's state changes on its own sockets' events). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
