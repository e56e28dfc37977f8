/**
 * A send whose connection a test cuts again and again (a relay's sides, a proxy): retried with
 * its idempotency key while the cut keeps it from the sidecar, so it is admitted once; the
 * turn's id. The relay e2e test and the relay-cuts scenario share it.
 */
import { type BridgeClient, BridgeConnectionError } from "../../src/client/index.js";

const ATTEMPTS = 40;
const RESEND_MS = 250;

export async function sendThroughCuts(
  client: BridgeClient,
  sessionId: string,
  text: string,
): Promise<string> {
  const idempotencyKey = crypto.randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      return (await client.send(sessionId, { text, delivery: "queue", idempotencyKey })).turnId;
    } catch (error) {
      // The sidecar registers at the relay again within its backoff after a cut.
      if (!(error instanceof BridgeConnectionError) || attempt === ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RESEND_MS));
    }
  }
}
