/**
 * `npm run docs:screenshots`: copies the screenshots docs/web-chat.md shows ("The screens")
 * from `test-results/screenshots/`, where every run of the browser tests writes them, into
 * `docs/screenshots/`. Run the browser tier first (`npx tsx scripts/test-tiers.ts browser`);
 * a screenshot no test wrote any more is named, and nothing is copied, so the page never shows
 * a stale picture beside fresh ones.
 */
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FROM = join(ROOT, "test-results", "screenshots");
const TO = join(ROOT, "docs", "screenshots");

/** docs/screenshots name → the browser test's screenshot. */
export const DOC_SCREENSHOTS: Readonly<Record<string, string>> = {
  "first-minute.png": "first-minute-landing.png",
  "first-minute-phone.png": "first-minute-landing-phone.png",
  "conversation.png": "tool-cards.png",
  "dark-mode.png": "dark-mode.png",
  "phone.png": "phone.png",
  "permission-diff.png": "permission-diff.png",
  "ask-dark.png": "ask-focused-dark.png",
  "ask-phone.png": "phone-ask-controls.png",
  "review.png": "chat-review-highlighted.png",
  "review-split-dark.png": "chat-review-highlighted-split-dark.png",
  "review-phone-dark.png": "chat-review-highlighted-phone-dark.png",
  "undo-confirm.png": "chat-review-undo-confirm.png",
  "redo-bar.png": "chat-revert-redo-bar.png",
  "fork.png": "chat-review-fork.png",
  "commands.png": "composer-commands.png",
  "commands-phone-dark.png": "composer-commands-phone-dark.png",
  "file-picker.png": "composer-file-picker.png",
  "status.png": "chat-status.png",
  "status-phone-dark.png": "chat-status-phone-dark.png",
  "terminal.png": "chat-terminal.png",
  "terminal-phone-dark.png": "chat-terminal-phone-dark.png",
  "files.png": "chat-files-highlighted.png",
  "files-phone-dark.png": "chat-files-highlighted-phone-dark.png",
  "sessions-away.png": "chat-away-finished.png",
  "sessions-phone.png": "first-minute-sessions-phone.png",
  "pairing-dialog.png": "pairing-dialog.png",
  "pairing-dialog-dark.png": "pairing-dialog-dark.png",
  "shortcuts.png": "shortcut-list.png",
};

const missing = Object.values(DOC_SCREENSHOTS).filter((name) => !existsSync(join(FROM, name)));
if (missing.length > 0) {
  process.stderr.write(
    `no such screenshot in test-results/screenshots: ${missing.join(", ")}\n` +
      "run the browser tests first (npx tsx scripts/test-tiers.ts browser), or update the list in scripts/doc-screenshots.ts\n",
  );
  process.exit(1);
}
for (const [doc, test] of Object.entries(DOC_SCREENSHOTS)) {
  copyFileSync(join(FROM, test), join(TO, doc));
}
process.stdout.write(
  `copied ${Object.keys(DOC_SCREENSHOTS).length} screenshots to docs/screenshots\n`,
);
