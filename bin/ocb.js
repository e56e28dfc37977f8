#!/usr/bin/env node
// The `ocb` command runs the compiled CLI. A packed package always has dist/ (`prepare` builds
// it before packing); a checkout builds it on `npm ci` / `npm install` (the same script). Where
// that did not run (`--ignore-scripts`, a failed build), say so rather than throw a stack trace
// about a missing module.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli/ocb.js", import.meta.url);
if (!existsSync(cli)) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(
    `ocb: the compiled CLI (dist/cli/ocb.js) is missing in ${root}.\n` +
      "In a checkout, build it with `npm run build` (npm ci and npm install do it unless scripts are ignored),\n" +
      "or run the sources directly with `npx tsx src/cli/ocb.ts`.\n",
  );
  process.exit(1);
}
await import(cli.href);
