/**
 * Through the real serve backend on hand-fed streams: once the live stream connects after an
 * outage, the durable stream, if still down, connects again at once. Its attempt under way
 * may be one a restarted server took while it was starting, which is never answered: before
 * the fix the session heard its turn's events only after that attempt's header bound (30 s).
 */
import { afterEach, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport } from "../../../test/support/hand-fed-transport.js";
import type { StreamConnectionChange } from "../../transport/transport.js";
import type { ServeBackend } from "./serve-backend.js";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const failed: StreamConnectionChange = {
  state: "reconnecting",
  attempt: 1,
  reason: "connect ECONNREFUSED",
  retryInMs: 250,
};

it("the live stream connecting after an outage connects a durable stream still down at once", async () => {
  const transport = new HandFedTransport();
  const { backend } = handFedServeBackend(transport, "ses_serverBack");
  backends.push(backend);
  await tick();
  const opened = (operation: string) =>
    transport.opened.filter((stream) => stream.operation === operation);
  const live = () => opened("v2.event.subscribe")[0]?.options;
  const durable = () => opened("v2.session.events");
  expect(durable()).toHaveLength(1);

  live()?.onConnection?.(failed);
  durable()[0]?.options.onConnection?.(failed);
  live()?.onConnection?.({ state: "connected" });
  await tick();
  expect(durable()).toHaveLength(2);
  expect(durable()[0]?.options.signal?.aborted).toBe(true);
  expect(durable()[1]?.options.signal?.aborted).toBe(false);

  // A live outage while the durable stream is not down leaves that stream be.
  live()?.onConnection?.(failed);
  live()?.onConnection?.({ state: "connected" });
  await tick();
  expect(durable()).toHaveLength(2);
});
