/** The sidecar's connector against a real relay: it re-registers after a restart, stops on abort. */
import { describe, expect, it } from "vitest";
import { within } from "../../test/support/within.js";
import { connectToRelay, type RelayConnectorState } from "./relay-connector.js";
import { generateRelayIdentity } from "./relay-identity.js";
import { startRelay } from "./relay-server.js";

/** A connector whose states are recorded, with a wait for the n-th of a kind. */
function recordedConnector(url: string, signal?: AbortSignal) {
  const states: RelayConnectorState[] = [];
  const connector = connectToRelay({
    url,
    identity: generateRelayIdentity(),
    onIncoming: () => {},
    onState: (state) => states.push(state),
    baseBackoffMs: 20,
    maxBackoffMs: 100,
    ...(signal === undefined ? {} : { signal }),
  });
  const until = (kind: RelayConnectorState["kind"], count = 1) =>
    within(
      (async () => {
        while (states.filter((state) => state.kind === kind).length < count) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
      `${kind} ×${count}`,
    );
  return { connector, states, until };
}

describe("connectToRelay", () => {
  it("registers again once a restarted relay is back, after backing off", async () => {
    const first = await startRelay();
    const port = Number(new URL(first.url).port);
    const { connector, states, until } = recordedConnector(first.url);
    try {
      await until("registered");
      await first.close();
      await until("disconnected");
      const second = await startRelay({ port });
      try {
        await until("registered", 2);
        const disconnects = states.filter((state) => state.kind === "disconnected");
        expect(disconnects[0]).toMatchObject({ code: 1001 });
        for (const state of disconnects) {
          expect(state.kind === "disconnected" && state.retryInMs <= 100).toBe(true);
        }
      } finally {
        await connector.close();
        await second.close();
      }
    } finally {
      await connector.close();
    }
  });

  it("stops for good when its signal aborts, closing its control socket", async () => {
    const relay = await startRelay();
    const controller = new AbortController();
    const { connector, states, until } = recordedConnector(relay.url, controller.signal);
    try {
      await until("registered");
      controller.abort();
      await within(connector.close(), "the connector's close");
      expect(states.at(-1)).toEqual({ kind: "stopped", why: "aborted" });
    } finally {
      await relay.close();
    }
  });
});
