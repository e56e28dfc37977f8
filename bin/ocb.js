#!/usr/bin/env node
// The `ocb` command. An installed package runs its compiled CLI (dist/, built before packing).
// A checkout (its sources are beside this file; the package does not ship them) runs the
// TypeScript sources through tsx, a devDependency, in this process, as `npm start` does: so
// `npx ocb` works right after `npm ci`, with no build step on install, and a dist/ left by an
// earlier `npm pack` can never run stale code. In-process (not a tsx child) so that signals
// and a SIGKILL reach the CLI itself, which its server's keeper relies on.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/ocb.ts", import.meta.url);
const compiled = new URL("../dist/cli/ocb.js", import.meta.url);

const tsx = existsSync(source) ? await loadTsx() : undefined;
if (tsx !== undefined) {
  tsx.register();
  await import(source.href);
} else if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(
    `ocb: nothing to run in ${root}: the compiled CLI (dist/cli/ocb.js) is missing, and so is tsx to run the sources.\n` +
      "In a checkout, install the devDependencies (`npm ci`) or build the CLI (`npm run build`).\n",
  );
  process.exit(1);
}

/** tsx's loader API, or undefined when it is not installed (a checkout without devDependencies). */
async function loadTsx() {
  try {
    return await import("tsx/esm/api");
  } catch (error) {
    const missing = error?.code === "ERR_MODULE_NOT_FOUND" && /'tsx'/.test(error.message);
    if (missing) return undefined;
    throw error;
  }
}
