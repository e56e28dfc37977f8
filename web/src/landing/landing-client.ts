/**
 * The landing page's client: the composer there is the sessions' own (`Composer`), which sends
 * to a session by id, but no session exists yet. This client stands in for the real one: its
 * first send creates the session (in the chosen project, titled from the message's first
 * words, with the model picked meanwhile), then sends to it; a send while that creation runs
 * waits for it and goes to the same session, so a quick second message makes no second one.
 * Everything else is the real client's.
 */
import type { BridgeClient, ModelRef, SessionInfo } from "opencode-bridge/client";
import { clientWith } from "../client-with.js";
import { titleFromMessage } from "../session-label.js";

const CREATE_BOUND_MS = 60_000;

export interface FirstSession {
  /** The project the session is made in (undefined: the sidecar's default). */
  directory(): string | undefined;
  /** A session is being created (`true`), or that is over (`false`). */
  onCreating(creating: boolean): void;
  /** The message went into the session made for it: open it. */
  onSent(session: SessionInfo): void;
}

export function landingClient(client: BridgeClient, first: FirstSession): BridgeClient {
  let made: Promise<SessionInfo> | undefined;
  let model: ModelRef | undefined;
  const sessionFor = (text: string): Promise<SessionInfo> => {
    if (made !== undefined) return made;
    const title = titleFromMessage(text);
    const directory = first.directory();
    made = client.createSession(
      {
        ...(directory === undefined ? {} : { directory }),
        ...(title === undefined ? {} : { title }),
        ...(model === undefined ? {} : { model }),
      },
      { timeoutMs: CREATE_BOUND_MS },
    );
    // A failed creation is tried again by the next send (the composer gave the text back).
    made.catch(() => {
      made = undefined;
    });
    return made;
  };
  const send: BridgeClient["send"] = async (_none, input, options) => {
    first.onCreating(true);
    try {
      const session = await sessionFor(input.text);
      const result = await client.send(session.id, input, options);
      first.onSent(session);
      return result;
    } finally {
      first.onCreating(false);
    }
  };
  // The model picked before the first message is the one the session is made with.
  const switchModel: BridgeClient["switchModel"] = async (_none, picked) => {
    model = picked;
  };
  return clientWith(client, { send, switchModel });
}
