/**
 * `ocb import FILE`: a transcript file (from `ocb export`) into the store. The whole file is
 * checked before the store is touched, and a session already there is kept unless --replace.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { describeError } from "../../util/describe-error.js";
import { STORE_KEY_FILE_HELP, STORE_OPTION_HELP, withStore } from "../store-access.js";
import { parseTranscript, type Transcript } from "../transcript-file.js";

interface ImportOptions {
  store?: string;
  storeKeyFile?: string;
  replace?: boolean;
}

export function registerImportCommand(program: Command): void {
  program
    .command("import")
    .description("add a session exported with `ocb export` to the transcript store")
    .argument("<file>", "the NDJSON transcript file")
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option("--replace", "replace a session with the same id (its events and record)")
    .action(async (file: string, options: ImportOptions) => {
      const transcript = readTranscript(file);
      const { id } = transcript.session;
      const stored = await withStore(options, "write", async (store, path) => {
        // Events without a record (never written by a bridge) would still collide on seqs.
        if ((await store.session(id)) !== undefined || (await store.lastSeq(id)) > 0) {
          if (!options.replace) {
            throw new UsageError(
              `session ${id} is already in ${path}; pass --replace to overwrite it`,
            );
          }
          await store.deleteSession(id);
        }
        await store.saveSession(transcript.session);
        // The store numbers them 1..n in the file's order.
        return (await store.append(id, transcript.events)).length;
      });
      console.log(`imported ${id}: ${stored} events`);
    });
}

function readTranscript(file: string): Transcript {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${describeError(error)}`, { cause: error });
  }
  try {
    return parseTranscript(text);
  } catch (error) {
    if (error instanceof UsageError) {
      throw new UsageError(`${file} is not a transcript to import: ${error.message}`);
    }
    throw error;
  }
}
