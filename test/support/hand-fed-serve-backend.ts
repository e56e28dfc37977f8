/**
 * A serve backend on a hand-fed transport (recorded native events fed by the test), and the
 * canonical events it publishes, with a bounded wait for a condition on them. A replay of
 * recorded streams through the real backend code, not end to end.
 */

import { ServeBackend } from "../../src/backends/serve/serve-backend.js";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { OpencodeClient } from "../../src/opencode-client/opencode-client.js";
import type { Transport } from "../../src/transport/transport.js";
import { ChangeNotifier } from "../../src/util/change-notifier.js";
import { silentLogger } from "../../src/util/logger.js";

export const HAND_FED_DIRECTORY = "/work/dir";

export function handFedServeBackend(transport: Transport, sessionId: string) {
  const published: CanonicalEvent[] = [];
  const changes = new ChangeNotifier();
  const backend = new ServeBackend(
    new OpencodeClient(transport, { directory: HAND_FED_DIRECTORY }),
    {
      sessionId,
      directory: HAND_FED_DIRECTORY,
      logger: silentLogger,
      sink: (event) => {
        published.push(event);
        changes.notify();
      },
      childSink: () => {},
      connection: () => {},
    },
    // The replays lose deltas on purpose: their ends go after a second, not the default bound.
    { deltaIdleMs: 1_000 },
  );
  /** Waits (5 s unless told) for `condition`; names what it waited for and what came. */
  const until = async (what: string, condition: () => boolean, timeoutMs = 5_000) => {
    const held = await changes.until(condition, { what, timeoutMs });
    if (!held) throw new Error(`timed out ${what}; published: ${published.map((e) => e.type)}`);
  };
  return { backend, published, until };
}
