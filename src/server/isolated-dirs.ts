/**
 * A set of XDG roots of its own for a managed server, so that it reads none of the user's
 * OpenCode config, credentials or sessions: a fresh temp dir by default, removed when the
 * server stops; or a kept one (`dataDir`), where OpenCode's sessions outlive the server, so
 * that a bridge started again later goes on with them.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Prefix of every isolated temp dir, so a leftover one is easy to recognise. */
export const ISOLATED_DIR_PREFIX = "ocb-opencode-";

/** The file that marks a kept root: nothing of ours ever deletes such a root. */
const KEPT_MARK = "KEPT-BY-OPENCODE-BRIDGE";

/** The temp dir of one isolated server and the environment that points OpenCode at it. */
export interface IsolatedDirs {
  readonly root: string;
  /** A kept root (`keptIsolatedDirs`): nothing of ours deletes it. */
  readonly kept: boolean;
  /**
   * `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME` and `TMPDIR` under
   * `root`. `TMPDIR` because OpenCode (a Bun executable) unpacks the native libraries it carries
   * into it at every start and never removes them: 6 MB in the user's `/tmp` per server started.
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Deletes `root` and everything in it; of a kept root, only the config file it was given
   * (it may hold a provider's API key: it is written again at each start) and the temp dir.
   * Idempotent.
   */
  remove(): Promise<void>;
}

/** The root a server's keeper may remove once no bridge is left: a temp one, never a kept one. */
export function temporaryRootOf(dirs: IsolatedDirs | undefined): string | undefined {
  return dirs === undefined || dirs.kept ? undefined : dirs.root;
}

/** Creates `<os.tmpdir()>/ocb-opencode-XXXXXX` with one subdirectory per XDG root and a temp dir. */
export async function createIsolatedDirs(): Promise<IsolatedDirs> {
  const root = await mkdtemp(join(tmpdir(), ISOLATED_DIR_PREFIX));
  const dirs = isolatedDirsAt(root);
  try {
    await Promise.all(Object.values(dirs.env).map((dir) => mkdir(dir)));
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  return dirs;
}

/**
 * The kept roots at `root` (made, readable by the owner only, when missing): OpenCode's
 * sessions stay there when the server stops, for the next one started there.
 */
export async function keptIsolatedDirs(root: string): Promise<IsolatedDirs> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  // The mark first: the dirs below read it to know they are kept.
  await writeFile(
    join(root, KEPT_MARK),
    "OpenCode's data for opencode-bridge (its sessions): kept across restarts, never deleted by it.\n",
  );
  const dirs = isolatedDirsAt(root);
  await Promise.all(Object.values(dirs.env).map((dir) => mkdir(dir, { recursive: true })));
  return dirs;
}

/** The isolated dirs under an existing `root` (a server taken up again runs in its old ones). */
export function isolatedDirsAt(root: string): IsolatedDirs {
  const env = {
    XDG_DATA_HOME: join(root, "data"),
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_STATE_HOME: join(root, "state"),
    TMPDIR: join(root, "tmp"),
  };
  // Asked of the root itself, so that no path (a leftover's record included) deletes kept data.
  const kept = existsSync(join(root, KEPT_MARK));
  let removal: Promise<void> | undefined;
  return {
    root,
    kept,
    env,
    remove() {
      // SQLite may still be closing its files right after the process exits; retry briefly.
      removal ??= kept
        ? Promise.all([
            rm(globalConfigFile(env.XDG_CONFIG_HOME), { force: true }),
            rm(env.TMPDIR, { recursive: true, force: true }),
          ]).then(() => {})
        : rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return removal;
    },
  };
}

function globalConfigFile(configHome: string): string {
  return join(configHome, "opencode", "opencode.json");
}

/**
 * Writes the server's config as the global config file of the isolated roots. OpenCode
 * 1.18.33's `/api` model catalog reads only this file: a provider given just through
 * `OPENCODE_CONFIG_CONTENT` works on the legacy surface, but an `/api` prompt to it is
 * admitted and then silently never runs.
 */
export async function writeGlobalConfig(dirs: IsolatedDirs, configJson: string): Promise<void> {
  const configHome = dirs.env.XDG_CONFIG_HOME;
  if (configHome === undefined) return;
  const file = globalConfigFile(configHome);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, configJson, { mode: 0o600 });
}
