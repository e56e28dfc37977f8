/**
 * The client's own duties, over a transport that answers from a table: unwrapping `{data}`,
 * validating what it sends (before sending) and what it receives. End-to-end behaviour
 * against the real server is in test/e2e.
 */
import { describe, expect, it } from "vitest";
import { ProtocolError, UsageError } from "../errors.js";
import type { OperationCall, Transport } from "../transport/transport.js";
import { OpencodeClient } from "./opencode-client.js";

function answering(body: unknown): { transport: Transport; calls: OperationCall[] } {
  const calls: OperationCall[] = [];
  return {
    calls,
    transport: {
      request: async (call) => {
        calls.push(call);
        return body;
      },
      stream: () => {
        throw new Error("no streams here");
      },
    },
  };
}

const session = {
  id: "ses_1",
  projectID: "global",
  cost: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
  time: { created: 1, updated: 1 },
  title: "t",
  location: { directory: "/w" },
};

describe("OpencodeClient", () => {
  it("unwraps {data} on /api operations", async () => {
    const { transport } = answering({ data: session });
    const client = new OpencodeClient(transport);
    await expect(client.v2.session.get({ sessionID: "ses_1" })).resolves.toMatchObject({
      id: "ses_1",
    });
  });

  it("turns a missing {data} wrapper into a ProtocolError instead of undefined fields", async () => {
    const { transport } = answering(session);
    const error = await new OpencodeClient(transport).v2.session
      .get({ sessionID: "ses_1" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).issues[0]?.path).toEqual(["data"]);
  });

  it("accepts a 204 on a wrapped /api route (interrupt, permission reply)", async () => {
    const { transport } = answering(undefined);
    const client = new OpencodeClient(transport);
    await expect(client.v2.session.interrupt({ sessionID: "ses_1" })).resolves.toBeUndefined();
    await expect(
      client.v2.session.permission.reply({ sessionID: "ses_1", requestID: "per_1", reply: "once" }),
    ).resolves.toBeUndefined();
  });

  it("validates a response against its schema", async () => {
    const { transport } = answering({ data: { ...session, id: 42 } });
    await expect(
      new OpencodeClient(transport).v2.session.get({ sessionID: "ses_1" }),
    ).rejects.toThrow(/id/);
  });

  it("refuses a bad request before it is sent, naming the field", async () => {
    const { transport, calls } = answering({ data: {} });
    const client = new OpencodeClient(transport);
    const error = await client.v2.session
      .prompt({
        sessionID: "ses_1",
        prompt: { text: "hi" },
        delivery: "later" as "queue",
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/delivery/);
    expect(calls).toHaveLength(0);
  });

  it("sends the client's directory unless a call names its own", async () => {
    const { transport, calls } = answering(true);
    const client = new OpencodeClient(transport, { directory: "/default" });
    await client.session.abort({ sessionID: "s" });
    await client.session.abort({ sessionID: "s" }, { directory: "/other" });
    expect(calls.map((call) => call.directory)).toEqual(["/default", "/other"]);
  });

  it("keeps a stream frame its parser refuses (no string type) as unknown; the stream goes on", async () => {
    // Found by the reliability fuzzer: such a frame threw, ending the session's event stream.
    const frames = [[1], { type: 7 }, { type: "server.connected", properties: {} }];
    const transport: Transport = {
      request: async () => undefined,
      stream: async function* () {
        yield* frames;
      },
    };
    const seen = [];
    for await (const parsed of new OpencodeClient(transport).event.subscribe()) seen.push(parsed);
    expect(seen.map((parsed) => [parsed.known, parsed.event.type])).toEqual([
      [false, "unparsed"],
      [false, "unparsed"],
      [true, "server.connected"],
    ]);
    expect(seen[0]?.known === false && seen[0].issues?.[0]?.message).toMatch(/expected object/);
  });

  it("does not let an out-of-range durable seq swallow the session's later events", async () => {
    // Found by the reliability fuzzer: a frame whose seq was 1e999 (Infinity) or 2**64 became
    // the cursor, and every later event was skipped as already seen (and resumed after it).
    const frame = (seq: unknown, id: string) => ({
      type: "session.next.prompted",
      id,
      durable: { aggregateID: "ses_1", seq, version: 1 },
      data: { timestamp: 1, sessionID: "ses_1", messageID: "msg_1" },
    });
    const frames = [
      frame(1, "a"),
      frame(JSON.parse("1e999"), "b"),
      frame(2 ** 64, "c"),
      frame(2, "d"),
    ];
    const transport: Transport = {
      request: async () => undefined,
      stream: async function* () {
        yield* frames;
      },
    };
    const ids = [];
    for await (const parsed of new OpencodeClient(transport).v2.session.events({
      sessionID: "ses_1",
    })) {
      ids.push(parsed.event.id);
    }
    expect(ids).toEqual(["a", "b", "c", "d"]);
  });
});
