/**
 * The backends' read loops keep going past a native event their normaliser cannot handle:
 * it becomes `native.unknown` with the error, and the events after it are normalised as usual.
 * The client here is a stand-in that yields parsed events (no server: the loops are the
 * subject, not OpenCode's wire format).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../events/canonical.js";
import type { OpencodeClient } from "../opencode-client/opencode-client.js";
import { Bridge } from "../runtime/bridge/bridge.js";
import { silentLogger } from "../util/logger.js";
import type { BackendContext } from "./backend.js";
import { ServeBackend } from "./serve/serve-backend.js";
import { LegacyBackend } from "./serve-legacy/legacy-backend.js";

const SESSION = "ses_1";

/** Yields `events`, then waits for the abort (a stream that stays open). */
async function* streamOf(events: unknown[], signal: AbortSignal | undefined) {
  for (const event of events) yield event;
  await new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

function contextCollecting(events: CanonicalEvent[]): BackendContext {
  return {
    sessionId: SESSION,
    directory: "/tmp",
    sink: (event) => events.push(event),
    childSink: () => {},
    connection: () => {},
    logger: silentLogger,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("a normaliser that throws does not end a read loop", () => {
  it("serve: the event becomes native.unknown with the error; the next one still comes", async () => {
    const durable = [
      // Known by type, yet not the shape the normaliser relies on: it throws.
      { known: true, event: { type: "session.next.step.started", id: "evt_1", data: {} } },
      {
        known: true,
        event: {
          type: "session.next.prompted",
          id: "evt_2",
          data: { sessionID: SESSION, messageID: "msg_1", timestamp: 5 },
        },
      },
    ];
    const client = {
      v2: {
        session: {
          events: (_input: unknown, options: { signal?: AbortSignal }) =>
            streamOf(durable, options.signal),
        },
        event: {
          subscribe: (options: { signal?: AbortSignal }) =>
            streamOf(
              [{ known: true, event: { type: "server.connected", data: {} } }],
              options.signal,
            ),
        },
      },
    } as unknown as OpencodeClient;
    const events: CanonicalEvent[] = [];
    const backend = new ServeBackend(client, contextCollecting(events));
    try {
      await until(() => events.some((event) => event.type === "input.delivered"));
      expect(events.map((event) => event.type)).toEqual([
        "native.unknown",
        "turn.started",
        "input.delivered",
      ]);
      const unknown = events[0] as CanonicalEvent & {
        data: { error?: string; nativeType: string };
      };
      expect(unknown.data.nativeType).toBe("session.next.step.started");
      expect(unknown.data.error).toBeTruthy();
    } finally {
      await backend.close();
    }
  });

  it("serve-legacy: the event becomes native.unknown with the error, not dropped", async () => {
    const frames = [
      { known: true, event: { type: "server.connected", properties: {} } },
      { known: true, event: { type: "message.part.updated", properties: { sessionID: SESSION } } },
      {
        known: true,
        event: { type: "file.edited", properties: { sessionID: SESSION, file: "a.txt" } },
      },
    ];
    const client = {
      event: {
        subscribe: (options: { signal?: AbortSignal }) => streamOf(frames, options.signal),
      },
    } as unknown as OpencodeClient;
    const events: CanonicalEvent[] = [];
    const backend = new LegacyBackend(client, contextCollecting(events), {
      model: { providerID: "demo", modelID: "demo-1" },
    });
    try {
      await until(() => events.some((event) => event.type === "file.edited"));
      expect(events.map((event) => event.type)).toEqual(["native.unknown", "file.edited"]);
      const unknown = events[0] as CanonicalEvent & {
        data: { error?: string; nativeType: string };
      };
      expect(unknown.data.nativeType).toBe("message.part.updated");
      expect(unknown.data.error).toMatch(/undefined/);
      expect(unknown.at).toBeGreaterThan(0);
    } finally {
      await backend.close();
    }
  });

  it("asks carry the time they were seen, not 0 (legacy asks have no time of their own)", async () => {
    const frames = [
      { known: true, event: { type: "server.connected", properties: {} } },
      {
        known: true,
        event: {
          type: "permission.asked",
          properties: {
            id: "per_1",
            sessionID: SESSION,
            permission: "edit",
            patterns: ["a.txt"],
            always: ["*"],
            metadata: {},
          },
        },
      },
    ];
    const client = {
      event: {
        subscribe: (options: { signal?: AbortSignal }) => streamOf(frames, options.signal),
      },
    } as unknown as OpencodeClient;
    const events: CanonicalEvent[] = [];
    const before = Date.now();
    const backend = new LegacyBackend(client, contextCollecting(events), {
      model: { providerID: "demo", modelID: "demo-1" },
    });
    try {
      await until(() => events.some((event) => event.type === "permission.asked"));
      const asked = events.find((event) => event.type === "permission.asked");
      expect(asked?.at).toBeGreaterThanOrEqual(before);
      expect(asked?.at).toBeLessThanOrEqual(Date.now());
    } finally {
      await backend.close();
    }
  });

  it("subprocess: a line its parser refuses becomes native.unknown; the run goes on", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "ocb-read-loop-"));
    const fake = join(scratch, "opencode");
    const text = {
      type: "text",
      timestamp: 1,
      sessionID: "ses_run",
      part: { id: "prt_1", messageID: "msg_1", text: "still here" },
    };
    writeFileSync(fake, `#!/bin/sh\necho '{"no":"type"}'\necho '${JSON.stringify(text)}'\n`, {
      mode: 0o755,
    });
    const bridge = await Bridge.start({
      directory: scratch,
      backend: "subprocess",
      store: ":memory:",
      model: { providerID: "demo", modelID: "demo-1" },
      server: { binary: fake },
    });
    try {
      const session = await bridge.createSession();
      const turn = await session.send("hi", { delivery: "queue" });
      const events: CanonicalEvent[] = [];
      for await (const event of turn.events()) events.push(event);
      const unknown = events.find((event) => event.type === "native.unknown");
      expect(unknown?.data).toMatchObject({ nativeType: "unparsed", raw: { raw: { no: "type" } } });
      expect((unknown?.data as { error?: string } | undefined)?.error).toMatch(/type/);
      expect(events.find((event) => event.type === "text.ended")?.data).toMatchObject({
        text: "still here",
      });
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: "still here" });
    } finally {
      await bridge.close();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
