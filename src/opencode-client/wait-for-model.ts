/**
 * Waiting until the `/api` model catalog of a location lists a model. OpenCode 1.18.33 loads
 * each location's catalog in the background after the server is ready; a prompt that arrives
 * first is admitted and then silently dropped ("Model unavailable" in the server log only).
 *
 * While it loads, the catalog passes through partial states (empty; then every provider of
 * the models.dev database, before the config's providers are added and the unusable ones
 * dropped), so a model missing from it proves nothing by itself. The legacy
 * `GET /config/providers` answers only once the server has loaded its providers: a model it
 * does not list either is not configured at all, and is refused as soon as the `/api`
 * catalog has caught up with it (it lists every provider the legacy one does), with the
 * closest names the catalog has, instead of waiting for the bound. Where the two surfaces
 * disagree for good (a provider given only through `OPENCODE_CONFIG_CONTENT` on an attached
 * server reaches the legacy surface alone), or a server has no legacy surface, only the bound
 * ends the wait, with a TimeoutError naming what the catalog lists.
 *
 * The list is polled only once the catalog has the model's provider: the provider route
 * answers a few hundred bytes, where the list's models.dev state is some 8,000 models (4.5 MB
 * on 1.18.33) that the server takes most of a second to serialise, in the middle of its load:
 * asked for, it delayed the final catalog of a cold server by about a second.
 */
import { OpencodeApiError, TimeoutError, UnknownModelError } from "../errors.js";
import type { ModelInfo } from "../opencode-protocol/api/session.js";
import { sleep, withDeadline } from "../util/abort.js";
import { closestNames } from "../util/closest-names.js";
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

/** The models the server's config and credentials make usable, as the legacy surface lists them. */
interface ConfiguredModels {
  providers: ReadonlySet<string>;
  /** `provider/model` names. */
  models: ReadonlySet<string>;
}

/**
 * Polls `v2.model.list` until it lists `model`, and returns its entry. Throws UnknownModelError (a UsageError naming
 * the closest models) once the loaded catalog shows the model is not configured, and
 * TimeoutError (naming the models it did see) when the bound runs out first.
 */
export async function waitForModel(
  client: OpencodeClient,
  model: { providerID: string; id: string },
  options: WaitForModelOptions = {},
): Promise<ModelInfo> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const wanted = `${model.providerID}/${model.id}`;
  const what = `waiting for model ${wanted} in the /api catalog`;
  const deadline = withDeadline(what, timeoutMs, options.signal);
  const location = options.directory === undefined ? {} : { directory: options.directory };
  let configured: ConfiguredModels | undefined;
  // Asked once, beside the polls: its answer comes when the server has loaded its providers.
  const done = new AbortController();
  const legacySignal = AbortSignal.any([deadline.signal, done.signal]);
  void configuredModels(client, { signal: legacySignal, ...location }).then((found) => {
    configured = found;
  });
  let seen: string[] = [];
  try {
    await waitForProvider(client, model.providerID, {
      signal: deadline.signal,
      location,
      configured: () => configured,
      what,
    });
    for (;;) {
      const models = await client.v2.model.list({ signal: deadline.signal, ...location });
      seen = models.map((entry) => `${entry.providerID}/${entry.id}`);
      const found = models.find(
        (entry) => entry.providerID === model.providerID && entry.id === model.id,
      );
      if (found !== undefined) return found;
      if (configured !== undefined && !configured.models.has(wanted)) {
        const listed = new Set(models.map((entry) => entry.providerID));
        const caughtUp =
          models.length > 0 && [...configured.providers].every((id) => listed.has(id));
        if (caughtUp) {
          throw new UnknownModelError(
            wanted,
            closestNames(wanted, [...seen, ...configured.models]),
          );
        }
      }
      await sleep(options.intervalMs ?? 200, deadline.signal, what);
    }
  } catch (error) {
    if (error instanceof UnknownModelError) throw error;
    const classified = deadline.classify(error);
    if (classified instanceof TimeoutError) {
      const closest = closestNames(wanted, seen);
      throw new TimeoutError(
        `${what} (it lists ${seen.length > 0 ? summarize(seen) : "no models"}` +
          `${closest.length > 0 ? `; closest: ${closest.join(", ")}` : ""}; check the provider config)`,
        timeoutMs,
        { cause: error },
      );
    }
    throw classified;
  } finally {
    done.abort();
    deadline.dispose();
  }
}

/** Pause between asks of the provider route (it answers in a few milliseconds). */
const PROVIDER_INTERVAL_MS = 25;

/**
 * Waits until the catalog has `providerID`, asking the provider route. Returns at once, for
 * the list polls to decide, when the route answers anything but "not found" (a server without
 * it) or once the legacy catalog has answered (the server loaded its providers: the list is
 * past its big state, and it tells a provider that will never come).
 */
async function waitForProvider(
  client: OpencodeClient,
  providerID: string,
  options: {
    signal: AbortSignal;
    location: { directory?: string };
    configured: () => ConfiguredModels | undefined;
    what: string;
  },
): Promise<void> {
  while (options.configured() === undefined) {
    try {
      await client.v2.provider.get({ providerID }, { signal: options.signal, ...options.location });
      return;
    } catch (error) {
      if (options.signal.aborted) throw error;
      const notYet =
        error instanceof OpencodeApiError && error.errorName === "ProviderNotFoundError";
      if (!notYet) return;
    }
    await sleep(PROVIDER_INTERVAL_MS, options.signal, options.what);
  }
}

/** The legacy catalog, or undefined when it cannot be had (a server without the legacy surface). */
async function configuredModels(
  client: OpencodeClient,
  options: { signal: AbortSignal; directory?: string },
): Promise<ConfiguredModels | undefined> {
  try {
    const { providers } = await client.config.providers(options);
    return {
      providers: new Set(providers.map((provider) => provider.id)),
      models: new Set(
        providers.flatMap((provider) =>
          Object.keys(provider.models).map((id) => `${provider.id}/${id}`),
        ),
      ),
    };
  } catch {
    return undefined; // then only the bound ends the wait, as before
  }
}

/** A catalog's names for a message: all of a short one, the count and a few of a long one. */
function summarize(names: readonly string[]): string {
  const shown = 20;
  return names.length <= shown
    ? names.join(", ")
    : `${names.length} models: ${names.slice(0, shown).join(", ")}, …`;
}
