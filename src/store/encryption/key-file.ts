/**
 * Reading a store's keys from a file (`--store-key-file`): refused when anyone but its owner
 * may read it, as ssh refuses a private key that others can read, since whoever reads the file
 * reads every transcript.
 */
import { readFileSync, statSync } from "node:fs";
import { UsageError } from "../../errors.js";
import { describeError } from "../../util/describe-error.js";
import { parseStoreKeys, type StoreKeyring } from "./store-keys.js";

/** The keyring in the file `path` (the text `OCB_STORE_KEY` takes; see `parseStoreKeys`). */
export function readStoreKeyFile(path: string): StoreKeyring {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new UsageError(
        `the store key file ${path} can be read by others (mode ${mode.toString(8)}): ` +
          `chmod 600 ${path}`,
      );
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the store key file ${path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  return parseStoreKeys(text.replaceAll(/\s+/g, ","), `the store key file ${path}`);
}
