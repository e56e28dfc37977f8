/** `ocb sessions`: the sessions kept in the transcript store, most recently updated first. */
import type { Command } from "commander";
import type { SessionRecord } from "../../store/store.js";
import { STORE_KEY_FILE_HELP, STORE_OPTION_HELP, withStore } from "../store-access.js";
import { alignedColumns, titleCell } from "../text-table.js";

interface SessionsOptions {
  store?: string;
  storeKeyFile?: string;
  json?: boolean;
}

/** A session as listed: its record and how many events its transcript holds. */
export type SessionRow = SessionRecord & { events: number };

export function registerSessionsCommand(program: Command): void {
  program
    .command("sessions")
    .description("list the sessions kept in the transcript store, most recently updated first")
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .option("--json", "print one JSON object per session and line (its record and event count)")
    .action(async (options: SessionsOptions) => {
      await withStore(options, "read", async (store, path) => {
        const records = await store.sessions();
        // Seqs are dense (1..n) per session, so the last one is the count without a read.
        const rows = await Promise.all(
          records.map(
            async (record): Promise<SessionRow> => ({
              ...record,
              events: await store.lastSeq(record.id),
            }),
          ),
        );
        rows.sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt);
        if (options.json) {
          for (const row of rows) console.log(JSON.stringify(row));
        } else if (rows.length === 0) {
          console.log(`no sessions in ${path} yet; \`ocb run\` keeps each one it runs there`);
        } else {
          console.log(sessionTable(rows).join("\n"));
        }
      });
    });
}

/** Aligned columns; the title and directory, the widest, come last. */
export function sessionTable(rows: readonly SessionRow[]): string[] {
  const cells = [
    ["ID", "BACKEND", "STATE", "UPDATED", "EVENTS", "TITLE", "DIRECTORY"],
    ...rows.map((row) => [
      row.id,
      row.backend,
      row.state,
      new Date(row.updatedAt).toISOString(),
      String(row.events),
      titleCell(row.title),
      row.directory,
    ]),
  ];
  return alignedColumns(cells);
}
