/**
 * End to end: agents over the sidecar, against a real `opencode serve` 1.18.33 and the scripted
 * model. The list offers `build` and `plan`; a switch to `plan` is OpenCode's own durable event
 * (`agent.switched`), seen by a second client and kept; the next turn runs as `plan` (its step
 * says so, and the model's system prompt is no longer build's); an unknown name is refused
 * before OpenCode, which would take it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, BridgeClient } from "../../src/client/index.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import type { ScriptedModel } from "../../src/testing/scripted-model/index.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { readUntil, sentTurn } from "../support/sidecar-reading.js";
import { NodeWebSocket } from "../support/ws.js";

const real = useRealSidecar({ web: false, label: "sidecar agents e2e" });
let client: BridgeClient;
let model: ScriptedModel;
beforeAll(() => {
  ({ client, model } = real.current);
});

/** Sends `text`; the turn's events up to its end. */
async function turn(sessionId: string, text: string, after: number): Promise<CanonicalEvent[]> {
  return (await sentTurn(client, sessionId, text, { after })).events;
}

/** The system prompt of the model's requests for the turn of `text` (title requests aside). */
function systemPromptsFor(text: string): string[] {
  return model.requests
    .filter((request) => request.tools.length > 0 && request.lastUserText.includes(text))
    .map((request) =>
      JSON.stringify(request.messages.filter((message) => message.role === "system")),
    );
}

describe("agents", () => {
  it("lists the primary agents a session can switch to", async () => {
    const agents = await client.agents();
    const names = agents.map((agent) => agent.name);
    expect(names).toEqual(expect.arrayContaining(["build", "plan"]));
    // Subagents and OpenCode's hidden helpers are not offered.
    expect(names).not.toContain("general");
    expect(names).not.toContain("title");
  });

  it("a switch to plan: agent.switched, kept and seen by a second client; the next turn runs as plan", async () => {
    const session = await client.createSession();
    expect(session.capabilities?.switchAgent).toBe(true);
    const first = await turn(session.id, "[[reply as build]]", 0);
    expect(first.find((event) => event.type === "step.started")?.data).toMatchObject({
      agent: "build",
    });
    const afterFirst = first.at(-1)?.seq ?? 0;

    await client.switchAgent(session.id, "plan");

    const switched = (
      await readUntil(client, session.id, (event) => event.type === "agent.switched", {
        after: afterFirst,
        what: "agent.switched",
      })
    ).at(-1);
    expect(switched).toMatchObject({
      type: "agent.switched",
      durable: true,
      data: { agent: "plan" },
    });
    expect(switched?.turnId).toBeUndefined();
    // A second client reads the same from the kept events.
    const other = new BridgeClient({
      url: real.current.sidecar.url,
      token: real.current.token,
      WebSocket: NodeWebSocket,
    });
    try {
      const kept = await readUntil(other, session.id, (event) => event.seq === switched?.seq, {
        what: "the kept events up to the switch",
      });
      expect(kept.at(-1)).toEqual(switched);
      expect((await other.getSession(session.id)).agent).toBe("plan");
    } finally {
      other.close();
    }

    const next = await turn(session.id, "[[reply as plan]]", switched?.seq ?? 0);

    expect(next.find((event) => event.type === "step.started")?.data).toMatchObject({
      agent: "plan",
    });
    expect(next.at(-1)?.data).toMatchObject({ outcome: "completed", text: "as plan" });
    // What the model was given differs: build's own instructions open its system prompt;
    // plan has none of its own (1.18.33 offers both the same tools).
    const [asBuild] = systemPromptsFor("[[reply as build]]");
    const [asPlan] = systemPromptsFor("[[reply as plan]]");
    expect(asBuild).toContain(BUILD_SYSTEM);
    expect(asPlan).toBeDefined();
    expect(asPlan).not.toContain(BUILD_SYSTEM);
  });

  it("refuses an unknown agent with a 400 naming the agents there are, and switches nothing", async () => {
    const session = await client.createSession();
    const refused = await client.switchAgent(session.id, "no-such-agent").catch((error) => error);
    expect(refused).toBeInstanceOf(BridgeApiError);
    expect(refused).toMatchObject({ status: 400, code: "invalid_request" });
    expect(String(refused.message)).toMatch(/unknown agent "no-such-agent"/);
    expect(String(refused.message)).toMatch(/\bbuild\b.*\bplan\b|\bplan\b.*\bbuild\b/);
    const events = await turn(session.id, "[[reply still build]]", 0);
    expect(events.find((event) => event.type === "step.started")?.data).toMatchObject({
      agent: "build",
    });
  });
});

/** The start of build's own system prompt (`GET /api/agent`'s `system` of build, 1.18.33). */
const BUILD_SYSTEM = "You are an AI coding agent.";
