/**
 * A prompt on the legacy surface while its `/event` stream is reconnecting: its events would be
 * lost for good (there is no cursor to catch up from), so `ready()` waits for the stream and
 * refuses rather than let the prompt go out blind. Seen on a clean clone: after a server
 * restart under load, a send went out before the stream was back and its turn never ended.
 * The client is a stand-in whose event stream reports what the SSE reader reports.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConnectionError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import type { SseConnectionChange as ConnectionChange } from "../../transport/sse-reader.js";
import { silentLogger } from "../../util/logger.js";
import type { BackendConnection } from "../backend.js";
import { LegacyBackend } from "./legacy-backend.js";

/** An event stream that says `server.connected`, then fails (the server went away) until told. */
function reconnectingClient() {
  let report: ((change: ConnectionChange) => void) | undefined;
  let connectedAgain: (() => void) | undefined;
  const client = {
    event: {
      subscribe(options: {
        signal: AbortSignal;
        onConnection?: (change: ConnectionChange) => void;
      }) {
        report = options.onConnection;
        return (async function* () {
          yield { known: true, event: { type: "server.connected", properties: {} } };
          report?.({ state: "reconnecting", attempt: 1, reason: "ECONNREFUSED", retryInMs: 250 });
          await new Promise<void>((resolve) => {
            connectedAgain = resolve;
            options.signal.addEventListener("abort", () => resolve(), { once: true });
          });
          if (options.signal.aborted) return;
          report?.({ state: "connected" });
          yield { known: true, event: { type: "server.connected", properties: {} } };
          await new Promise((resolve) => options.signal.addEventListener("abort", resolve));
        })();
      },
    },
  };
  return { client: client as unknown as OpencodeClient, comeBack: () => connectedAgain?.() };
}

/**
 * An event stream whose every subscription, when told, connects (says so as the SSE reader
 * does, then sends `server.connected`) or fails an attempt; it hangs otherwise.
 */
function subscriptionsClient() {
  const subscriptions: { signal: AbortSignal; connect: () => void; fail: () => void }[] = [];
  const client = {
    event: {
      subscribe(options: {
        signal: AbortSignal;
        onConnection?: (change: ConnectionChange) => void;
      }) {
        let connect = () => {};
        const told = new Promise<void>((resolve) => {
          connect = resolve;
        });
        subscriptions.push({
          signal: options.signal,
          connect: () => {
            options.onConnection?.({ state: "connected" });
            connect();
          },
          fail: () =>
            options.onConnection?.({
              state: "reconnecting",
              attempt: 1,
              reason: "ECONNREFUSED",
              retryInMs: 10_000,
            }),
        });
        return (async function* () {
          await Promise.race([
            told,
            new Promise((resolve) => options.signal.addEventListener("abort", resolve)),
          ]);
          if (options.signal.aborted) return;
          yield { known: true, event: { type: "server.connected", properties: {} } };
          await new Promise((resolve) => options.signal.addEventListener("abort", resolve));
        })();
      },
    },
  };
  return { client: client as unknown as OpencodeClient, subscriptions };
}

describe("legacy backend, a prompt while the event stream reconnects", () => {
  const backends: LegacyBackend[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const backend of backends.splice(0)) await backend.close();
  });

  function backendOn(
    client: OpencodeClient,
    connection: (report: BackendConnection) => void = () => {},
  ): LegacyBackend {
    const backend = new LegacyBackend(
      client,
      {
        sessionId: "ses_reconnecting",
        directory: "/work/dir",
        logger: silentLogger,
        sink: () => {},
        childSink: () => {},
        connection,
      },
      { model: { providerID: "demo", modelID: "demo-1" } },
    );
    backends.push(backend);
    return backend;
  }

  it("is refused with a ConnectionError if the stream stays down, instead of going out blind", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { client } = reconnectingClient();
    const backend = backendOn(client);
    await vi.advanceTimersByTimeAsync(0);
    const ready = backend.ready();
    const settled = ready.then(
      () => "sent blind",
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(120_000);
    const outcome = await settled;
    expect(outcome).toBeInstanceOf(ConnectionError);
    expect(String(outcome)).toMatch(/event stream has not come back/);
  });

  it("goes out once the stream is back", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { client, comeBack } = reconnectingClient();
    const backend = backendOn(client);
    await vi.advanceTimersByTimeAsync(0);
    let done = false;
    const ready = backend.ready().then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(done).toBe(false);
    comeBack();
    await vi.advanceTimersByTimeAsync(0);
    await ready;
    expect(done).toBe(true);
  });

  it("serverRestarted() drops a connection that hangs and subscribes again at once", async () => {
    const { client, subscriptions } = subscriptionsClient();
    const backend = backendOn(client);
    await new Promise((resolve) => setImmediate(resolve));
    subscriptions[0]?.connect();
    await backend.ready();
    // The server was restarted; the stream's connection reached it while it was starting.
    backend.serverRestarted();
    await new Promise((resolve) => setImmediate(resolve));
    expect(subscriptions).toHaveLength(2);
    expect(subscriptions[0]?.signal.aborted).toBe(true);
    expect(subscriptions[1]?.signal.aborted).toBe(false);
    // A prompt waits for the new connection, not blind on the dropped one.
    let ready = false;
    const readying = backend.ready().then(() => {
      ready = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(ready).toBe(false);
    subscriptions[1]?.connect();
    await readying;
    expect(ready).toBe(true);
  });
  it("a prompt while the stream is down has it try again at once; its connection ends the outage", async () => {
    const reports: string[] = [];
    const { client, subscriptions } = subscriptionsClient();
    const backend = backendOn(client, (report) => reports.push(report.state));
    await new Promise((resolve) => setImmediate(resolve));
    subscriptions[0]?.connect();
    await backend.ready();
    // The server went away; the reader waits out its backoff (or an attempt a starting server
    // took, which it never answers).
    subscriptions[0]?.fail();
    const readying = backend.ready();
    await new Promise((resolve) => setImmediate(resolve));
    expect(subscriptions).toHaveLength(2);
    expect(subscriptions[0]?.signal.aborted).toBe(true);
    subscriptions[1]?.connect();
    await readying;
    expect(reports).toEqual(["reconnecting", "connected"]);
  });
});
