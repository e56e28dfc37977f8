/**
 * A prebuilt `better-sqlite3` binary for an `npm install` in a test's temp project, so that the
 * packed-tarball test does not compile it from source a second time (about 1.5 minutes of both
 * cores here, where its install script cannot download the published prebuilt).
 *
 * The install stays a real one: better-sqlite3's own install script runs, and its
 * `prebuild-install` takes the binary from a local prebuilds folder (its `local-prebuilds`
 * option, read from `npm_config_better_sqlite3_local_prebuilds`) instead of the release
 * download, checks that it loads and unpacks it, just as for a user whose install downloads
 * the published one. The binary is this checkout's own build of the same version, for the same
 * Node ABI and platform. When there is none, or the names do not match, the install compiles.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The environment that offers the checkout's build to `npm install`; empty when there is none. */
export function sqlitePrebuildEnv(repoRoot: string, folder: string): Record<string, string> {
  const packageDir = join(repoRoot, "node_modules", "better-sqlite3");
  const binary = join("build", "Release", "better_sqlite3.node");
  if (!existsSync(join(packageDir, binary))) return {};
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    version: string;
  };
  // The name prebuild-install looks for (its urlTemplate), for this Node.
  const libc = process.platform === "linux" && !isGlibc() ? "musl" : "";
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
  execFileSync("tar", ["-czf", join(folder, name), "-C", packageDir, binary]);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}

function isGlibc(): boolean {
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  return report.header?.glibcVersionRuntime !== undefined;
}
