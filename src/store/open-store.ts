/**
 * Opens the store a spec names: every part of the bridge that opens one (runtime, CLI,
 * sidecar) goes through here, so that a new kind of store is one case more.
 */
import { UsageError } from "../errors.js";
import { SqliteStore } from "./sqlite-store.js";
import type { Store } from "./store.js";

/**
 * The store `spec` names: `:memory:` or a file path opens a SQLite store (the file created when
 * missing); a `postgres://` or `postgresql://` URL names a Postgres database.
 */
export async function openStore(spec: string): Promise<Store> {
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    throw new UsageError(
      "postgres stores arrive with issue 16; give the path of a SQLite file, or :memory:",
    );
  }
  return SqliteStore.open(spec);
}
