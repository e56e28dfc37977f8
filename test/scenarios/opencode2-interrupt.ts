/**
 * The client side of seed 000 (a real OpenCode 2.0.18 session): subscribe, list models,
 * create a session, put an instructions entry, prompt a long bash command, interrupt it
 * once the tool runs, and read on until the execution ends.
 */
import { Opencode2Client } from "../../src/opencode-client/opencode2-client.js";
import type { Transport } from "../../src/transport/transport.js";
import { consumeInBackground } from "../support/streams.js";

export const SEED_PROMPT =
  "Run the shell command `sleep 60 && echo LATE` with the bash tool, then reply DONE.";

export async function runOpencode2Interrupt(transport: Transport, directory: string) {
  const client = new Opencode2Client(transport, { directory });
  const controller = new AbortController();
  const events = consumeInBackground(client.event.subscribe({ signal: controller.signal }));
  try {
    const models = await client.model.list({ directory });
    const session = await client.session.create({
      title: "spike interrupt",
      location: { directory },
    });
    await client.session.instructions.entry.put({
      sessionID: session.id,
      key: "t3-code",
      value: "Answer briefly.",
    });
    const admitted = await client.session.prompt({
      sessionID: session.id,
      text: SEED_PROMPT,
      delivery: "steer",
    });
    await events.until((items) =>
      items.some((item) => item.event.type === "session.tool.progress"),
    );
    const interrupted = await client.session.interrupt({ sessionID: session.id });
    await events.until((items) =>
      items.some((item) => item.event.type === "session.execution.interrupted"),
    );
    return { models, session, admitted, interrupted, events: events.items };
  } finally {
    controller.abort();
    await events.finished.catch(() => {});
  }
}
