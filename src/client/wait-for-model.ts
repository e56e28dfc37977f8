/**
 * Waiting until the `/api` model catalog of a location lists a model. OpenCode 1.18.33 loads
 * each location's catalog in the background after the server is ready; a prompt that arrives
 * first is admitted and then silently dropped ("Model unavailable" in the server log only).
 */
import { TimeoutError } from "../errors.js";
import { sleep, withDeadline } from "../util/abort.js";
import type { OpencodeClient } from "./opencode-client.js";

export interface WaitForModelOptions {
  /** The location whose catalog must list the model (default: the client's). */
  directory?: string;
  /** Overall bound (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Pause between polls (default 200 ms). */
  intervalMs?: number;
}

/** Polls `v2.model.list` until it lists `model`; TimeoutError names the models it did see. */
export async function waitForModel(
  client: OpencodeClient,
  model: { providerID: string; id: string },
  options: WaitForModelOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const what = `waiting for model ${model.providerID}/${model.id} in the /api catalog`;
  const deadline = withDeadline(what, timeoutMs, options.signal);
  let seen: string[] = [];
  try {
    for (;;) {
      const models = await client.v2.model.list({
        signal: deadline.signal,
        ...(options.directory === undefined ? {} : { directory: options.directory }),
      });
      seen = models.map((entry) => `${entry.providerID}/${entry.id}`);
      if (models.some((entry) => entry.providerID === model.providerID && entry.id === model.id)) {
        return;
      }
      await sleep(options.intervalMs ?? 200, deadline.signal, what);
    }
  } catch (error) {
    const classified = deadline.classify(error);
    if (classified instanceof TimeoutError) {
      throw new TimeoutError(
        `${what} (it lists ${seen.length > 0 ? seen.join(", ") : "no models"}; check the provider config)`,
        timeoutMs,
        { cause: error },
      );
    }
    throw classified;
  } finally {
    deadline.dispose();
  }
}
