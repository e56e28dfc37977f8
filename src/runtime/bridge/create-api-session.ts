/**
 * Creating a session on the `/api` surface while the location's model catalog loads: creating
 * needs no catalog (a prompt does, and every send waits for it in the session's `beforeSend`),
 * so a cold `ocb run` does not pay the create's round trip after the catalog wait.
 */
import { OpencodeApiError } from "../../errors.js";
import type { ModelRef } from "../../events/canonical.js";
import type { ServeRunner } from "./launch.js";
import type { ModelReadiness } from "./model-readiness.js";

/** Creates the session and waits for the catalog to list `model`; returns the session's id. */
export async function createApiSession(
  runner: ServeRunner,
  readyModels: ModelReadiness,
  options: { directory: string; model: ModelRef; title?: string; signal?: AbortSignal },
): Promise<string> {
  const { directory, model, signal } = options;
  const creating = runner.client.v2.session.create(
    {
      model: { providerID: model.providerID, id: model.modelID },
      location: { directory },
      ...(options.title === undefined ? {} : { title: options.title }),
    },
    { directory, ...(signal === undefined ? {} : { signal }) },
  );
  // Awaited below; a failure before then must not count as an unhandled rejection.
  creating.catch(() => {});
  try {
    await readyModels.ensure(runner.client, directory, model, signal);
  } catch (error) {
    // The model never came (unknown, or the wait was aborted): the session is of no use.
    void creating
      .then((info) => runner.client.session.delete({ sessionID: info.id }, { directory }))
      .catch(() => {});
    throw error;
  }
  return (await creating).id;
}

/**
 * Whether OpenCode still has session `sessionId` (a 404 says it has not: deleted, or never on
 * this server). Any other failure is thrown: a server that cannot be asked proves nothing.
 */
export async function upstreamExists(
  runner: ServeRunner,
  sessionId: string,
  directory: string,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  try {
    await runner.client.v2.session.get(
      { sessionID: sessionId },
      { directory, ...(signal === undefined ? {} : { signal }) },
    );
    return true;
  } catch (error) {
    if (error instanceof OpencodeApiError && error.status === 404) return false;
    throw error;
  }
}
