/** docs/events.md must document every canonical type, with an example. */
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { CANONICAL_TYPES } from "./canonical.js";

it("docs/events.md has a table row with an example for every canonical type", () => {
  const doc = readFileSync(new URL("../../docs/events.md", import.meta.url), "utf8");
  // A table row: `| \`type\` | what | \`{…example…}\` |`, cells padded or not.
  const missing = CANONICAL_TYPES.filter(
    (type) =>
      !new RegExp(
        `^\\|\\s*\`${type.replaceAll(".", "\\.")}\`\\s*\\|.*\\|\\s*\`\\{.*\\}\`\\s*\\|$`,
        "m",
      ).test(doc),
  );
  expect(missing).toEqual([]);
});
