/** `ocb export SESSION`: a stored session as a transcript file (NDJSON) on stdout. */
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { isEncryptedStore } from "../../store/encryption/row-codec.js";
import {
  requireSession,
  STORE_KEY_FILE_HELP,
  STORE_OPTION_HELP,
  withStore,
} from "../store-access.js";
import { transcriptLines } from "../transcript-file.js";

interface ExportOptions {
  store?: string;
  storeKeyFile?: string;
  plaintext?: boolean;
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description(
      "print a stored session as NDJSON: a header with its record, then its durable events",
    )
    .argument("<session>", "the session id (see `ocb sessions`)")
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option(
      "--plaintext",
      "export a session of an encrypted store: its transcript is written in clear",
    )
    .action(async (id: string, options: ExportOptions) => {
      await withStore(options, "read", async (store, path) => {
        // An encrypted store's transcripts leave it in clear only when asked to (docs/security.md).
        if (isEncryptedStore(store) && options.plaintext !== true) {
          throw new UsageError(
            `the transcript store ${path} is encrypted, and an export is written in clear: ` +
              "add --plaintext to export it anyway, and keep the file as safe as the key",
          );
        }
        const session = await requireSession(store, id, path, options.store);
        for (const line of transcriptLines({ session, events: await store.read(id) })) {
          process.stdout.write(`${line}\n`);
        }
      });
    });
}
