/**
 * Which models a server's `/api` catalog is known to list, per location. A location's catalog
 * loads after the server is ready, and a prompt sent before it lists the model is lost: the
 * bridge waits once per location and model, and again after the server may have lost it.
 */
import type { OpencodeClient } from "../client/opencode-client.js";
import { waitForModel } from "../client/wait-for-model.js";
import type { ModelRef } from "../events/canonical.js";

/** Waits until `client`'s catalog for `directory` lists `model`. */
export type WaitForCatalog = (
  client: OpencodeClient,
  directory: string,
  model: ModelRef,
  signal: AbortSignal | undefined,
) => Promise<void>;

export class ModelReadiness {
  readonly #ready = new Set<string>();
  readonly #wait: WaitForCatalog;

  /** `timeoutMs` bounds one wait for the catalog (`BridgeOptions.modelReadyTimeoutMs`). */
  constructor(timeoutMs: number, wait?: WaitForCatalog) {
    this.#wait =
      wait ??
      ((client, directory, model, signal) =>
        waitForModel(
          client,
          { providerID: model.providerID, id: model.modelID },
          { directory, timeoutMs, ...(signal === undefined ? {} : { signal }) },
        ));
  }

  /** Resolves once the catalog lists the model (at once when it was seen before). */
  async ensure(
    client: OpencodeClient,
    directory: string,
    model: ModelRef,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const key = modelKey(directory, model);
    if (this.#ready.has(key)) return;
    await this.#wait(client, directory, model, signal);
    this.#ready.add(key);
  }

  /** The model is looked up again (the streams lost the server: it may have been restarted). */
  forget(directory: string, model: ModelRef): void {
    this.#ready.delete(modelKey(directory, model));
  }

  /** Every model is looked up again (a restarted server loads its catalogs anew). */
  clear(): void {
    this.#ready.clear();
  }
}

/** One key per location and model. */
function modelKey(directory: string, model: ModelRef): string {
  return `${directory}\u0000${model.providerID}/${model.modelID}`;
}
