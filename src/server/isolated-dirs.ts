/**
 * A fresh set of XDG roots for one managed server, so that it reads none of the user's
 * OpenCode config, credentials or sessions and writes nothing outside a temp dir.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Prefix of every isolated temp dir, so a leftover one is easy to recognise. */
export const ISOLATED_DIR_PREFIX = "ocb-opencode-";

/** The temp dir of one isolated server and the environment that points OpenCode at it. */
export interface IsolatedDirs {
  readonly root: string;
  /** `XDG_DATA_HOME`, `XDG_CACHE_HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME` under `root`. */
  readonly env: Readonly<Record<string, string>>;
  /** Deletes `root` and everything in it. Idempotent. */
  remove(): Promise<void>;
}

/** Creates `<os.tmpdir()>/ocb-opencode-XXXXXX` with one subdirectory per XDG root. */
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

/** The isolated dirs under an existing `root` (a server taken up again runs in its old ones). */
export function isolatedDirsAt(root: string): IsolatedDirs {
  const env = {
    XDG_DATA_HOME: join(root, "data"),
    XDG_CACHE_HOME: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_STATE_HOME: join(root, "state"),
  };
  let removal: Promise<void> | undefined;
  return {
    root,
    env,
    remove() {
      // SQLite may still be closing its files right after the process exits; retry briefly.
      removal ??= rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      return removal;
    },
  };
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
  const dir = join(configHome, "opencode");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "opencode.json"), configJson, { mode: 0o600 });
}
