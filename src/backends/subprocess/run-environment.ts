/**
 * What every `opencode run` of a bridge shares: the binary, and the environment with the same
 * isolation as a managed server (its own XDG roots, so sessions continue from run to run and
 * the user's own setup stays out), the config written where every surface reads it.
 */
import { UsageError } from "../../errors.js";
import {
  createIsolatedDirs,
  type IsolatedDirs,
  writeGlobalConfig,
} from "../../server/isolated-dirs.js";
import { resolveOpencodeBinary } from "../../server/resolve-binary.js";
import { buildServerEnv } from "../../server/server-env.js";

export interface RunEnvironmentOptions {
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Use the user's own OpenCode config, credentials and sessions (default false). */
  inheritUserConfig?: boolean;
  binary?: string;
}

export class RunEnvironment {
  readonly binary: string;
  readonly env: Readonly<Record<string, string>>;
  readonly #dirs: IsolatedDirs | undefined;

  private constructor(binary: string, env: Record<string, string>, dirs: IsolatedDirs | undefined) {
    this.binary = binary;
    this.env = env;
    this.#dirs = dirs;
  }

  static async create(options: RunEnvironmentOptions = {}): Promise<RunEnvironment> {
    const binary = options.binary ?? resolveOpencodeBinary();
    if (binary.trim() === "") throw new UsageError("binary must not be empty");
    const dirs = options.inheritUserConfig ? undefined : await createIsolatedDirs();
    try {
      const env = buildServerEnv({
        baseEnv: process.env,
        isolatedEnv: dirs?.env,
        extraEnv: options.env,
        password: undefined,
        config: options.config,
      });
      if (dirs !== undefined && env.OPENCODE_CONFIG_CONTENT !== undefined) {
        await writeGlobalConfig(dirs, env.OPENCODE_CONFIG_CONTENT);
      }
      return new RunEnvironment(binary, env, dirs);
    } catch (error) {
      await dirs?.remove();
      throw error;
    }
  }

  /** Removes the isolated dirs (the sessions in them go too). */
  async close(): Promise<void> {
    await this.#dirs?.remove();
  }
}
