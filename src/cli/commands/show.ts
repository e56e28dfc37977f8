/** `ocb show SESSION`: a stored session's conversation, readable in a terminal. */
import type { Command } from "commander";
import { conversationOf } from "../../wire/conversation.js";
import { wantsColor } from "../ansi.js";
import { conversationText, sessionHeading } from "../conversation-text.js";
import {
  requireSession,
  STORE_KEY_FILE_HELP,
  STORE_OPTION_HELP,
  withStore,
} from "../store-access.js";

interface ShowOptions {
  store?: string;
  storeKeyFile?: string;
}

export function registerShowCommand(program: Command): void {
  program
    .command("show")
    .description("print a stored session's conversation: inputs, replies, tool calls, asks")
    .argument("<session>", "the session id (see `ocb sessions`)")
    .option("--store <path-or-url>", STORE_OPTION_HELP)
    .option("--store-key-file <path>", STORE_KEY_FILE_HELP)
    .action(async (id: string, options: ShowOptions) => {
      await withStore(options, "read", async (store, path) => {
        const record = await requireSession(store, id, path, options.store);
        const textOptions = { color: wantsColor(process.stdout) };
        const conversation = conversationOf(await store.read(id), id);
        process.stdout.write(
          `${sessionHeading(record, textOptions)}\n\n${conversationText(conversation, textOptions)}`,
        );
      });
    });
}
