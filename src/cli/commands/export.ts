/** `ocb export SESSION`: a stored session as a transcript file (NDJSON) on stdout. */
import type { Command } from "commander";
import { requireSession, STORE_OPTION_HELP, withStore } from "../store-access.js";
import { transcriptLines } from "../transcript-file.js";

interface ExportOptions {
  store?: string;
}

export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description(
      "print a stored session as NDJSON: a header with its record, then its durable events",
    )
    .argument("<session>", "the session id (see `ocb sessions`)")
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .action(async (id: string, options: ExportOptions) => {
      await withStore(options.store, "read", async (store, path) => {
        const session = await requireSession(store, id, path, options.store);
        for (const line of transcriptLines({ session, events: await store.read(id) })) {
          process.stdout.write(`${line}\n`);
        }
      });
    });
}
