/**
 * Which models a server's `/api` catalog is known to list, per location. A location's catalog
 * loads after the server is ready, and a prompt sent before it lists the model is lost: the
 * bridge waits once per location and model, and again after the server may have lost it.
 */

import type { ModelRef } from "../../events/canonical.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { waitForModel } from "../../opencode-client/wait-for-model.js";
import { isRecord } from "../../util/is-record.js";

/** Waits until `client`'s catalog for `directory` lists `model`; resolves with its entry. */
export type WaitForCatalog = (
  client: OpencodeClient,
  directory: string,
  model: ModelRef,
  signal: AbortSignal | undefined,
) => Promise<unknown>;

export class ModelReadiness {
  /** Models seen in the catalog, with the kinds of input they take (when it says). */
  readonly #ready = new Map<string, readonly string[] | undefined>();
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
    const entry = await this.#wait(client, directory, model, signal);
    this.#ready.set(key, inputKinds(entry));
  }

  /**
   * The kinds of input (`text`, `image`, `pdf`, …) the catalog says the model takes, once it was
   * seen there; undefined when it does not say.
   */
  inputsOf(directory: string, model: ModelRef): readonly string[] | undefined {
    return this.#ready.get(modelKey(directory, model));
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

/** `capabilities.input` of a catalog entry (`["text", "image"]`). */
function inputKinds(entry: unknown): readonly string[] | undefined {
  if (!isRecord(entry) || !isRecord(entry.capabilities)) return undefined;
  const input = entry.capabilities.input;
  return Array.isArray(input) && input.every((kind) => typeof kind === "string")
    ? input
    : undefined;
}

/** One key per location and model. */
function modelKey(directory: string, model: ModelRef): string {
  return `${directory}\u0000${model.providerID}/${model.modelID}`;
}
