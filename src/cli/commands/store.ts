/** `ocb store rekey`: the transcript store's maintenance (docs/security.md). */
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import { rekeyStore } from "../../store/encryption/rekey.js";
import {
  STORE_KEY_FILE_HELP,
  STORE_OPTION_HELP,
  type StoreOptions,
  withStore,
} from "../store-access.js";

interface RekeyOptions extends StoreOptions {
  batch?: string;
}

export function registerStoreCommand(program: Command): void {
  const store = program.command("store").description("the transcript store's maintenance");
  store
    .command("rekey")
    .description(
      "encrypt every event and title again with the newest key (the first of OCB_STORE_KEY " +
        "or --store-key-file), a batch per transaction; stopped, it goes on where it was next " +
        "time. Then the older keys are no longer needed",
    )
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option("--batch <events>", "events per transaction", "1000")
    .action(async (options: RekeyOptions) => {
      const batch = Number(options.batch);
      if (!Number.isSafeInteger(batch) || batch <= 0) {
        throw new UsageError(`--batch takes a number of events (> 0), not ${options.batch}`);
      }
      await withStore(options, "write", async (opened, path) => {
        const summary = await rekeyStore(opened, {
          batch,
          progress: (done) => process.stderr.write(`rekey ${path}: ${done.events} events\n`),
        });
        console.log(
          `${path}: ${summary.events} events and ${summary.titles} titles now under key ` +
            `${summary.keyId}` +
            (summary.dropped.length === 0
              ? ""
              : `; no row needs key ${summary.dropped.join(", ")} any more: drop it from the keys`),
        );
      });
    });
}
