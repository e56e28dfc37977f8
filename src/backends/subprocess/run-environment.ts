/**
 * What every `opencode run` of a bridge shares: the binary, and the environment with the same
 * isolation as a managed server (its own XDG roots, so sessions continue from run to run and
 * the user's own setup stays out), the config written where every surface reads it.
 */
import { accessSync, constants, statSync } from "node:fs";
import { UsageError } from "../../errors.js";
import type { IsolatedDirs } from "../../server/isolated-dirs.js";
import { opencodeStateDirs, prepareOpencodeEnv } from "../../server/prepared-env.js";
import { resolveOpencodeBinary } from "../../server/resolve-binary.js";
import { Sandbox, type WrappedCommand } from "../../server/sandbox/sandbox.js";
import type { SandboxMode, SandboxOptions } from "../../server/sandbox/sandbox-options.js";

export interface RunEnvironmentOptions {
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Variables of this process's environment to pass besides the allow-list (`passed-env.ts`). */
  passEnv?: readonly string[];
  /** Use the user's own OpenCode config, credentials and sessions (default false). */
  inheritUserConfig?: boolean;
  binary?: string;
  /** The sandbox every run runs in (`StartOpencodeOptions.sandbox`), made for this directory. */
  sandbox?: SandboxMode | SandboxOptions;
  /** The directory the sandbox lets the runs write in (`workspace-write`). */
  directory?: string;
}

export class RunEnvironment {
  readonly binary: string;
  readonly env: Readonly<Record<string, string>>;
  readonly #dirs: IsolatedDirs | undefined;
  readonly #sandbox: Sandbox | undefined;

  private constructor(
    binary: string,
    env: Record<string, string>,
    dirs: IsolatedDirs | undefined,
    sandbox: Sandbox | undefined,
  ) {
    this.binary = binary;
    this.env = env;
    this.#dirs = dirs;
    this.#sandbox = sandbox;
  }

  /** The sandbox mode the runs run in. */
  get sandboxMode(): SandboxMode {
    return this.#sandbox?.settings.mode ?? "off";
  }

  /** `opencode <args>` to spawn in `cwd`, inside the sandbox if there is one. */
  command(args: string[], cwd: string): WrappedCommand {
    return this.#sandbox?.wrap(this.binary, args, cwd) ?? { binary: this.binary, args, inputs: [] };
  }

  static async create(options: RunEnvironmentOptions = {}): Promise<RunEnvironment> {
    const binary = options.binary ?? resolveOpencodeBinary();
    checkRunnable(binary);
    const { env, dirs } = await prepareOpencodeEnv({
      inheritUserConfig: options.inheritUserConfig,
      env: options.env,
      passEnv: options.passEnv,
      password: undefined,
      config: options.config,
    });
    try {
      const sandbox = await Sandbox.prepare(options.sandbox, {
        directory: options.directory ?? process.cwd(),
        binary,
        ownState: await opencodeStateDirs(dirs, env),
      });
      return new RunEnvironment(binary, env, dirs, sandbox);
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

/** Every turn spawns the binary: say now, not at the first turn, when it cannot run. */
function checkRunnable(binary: string): void {
  let problem: string | undefined;
  try {
    if (!statSync(binary).isFile()) problem = "is not a file";
    else accessSync(binary, constants.X_OK);
  } catch (error) {
    problem =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "does not exist"
        : "is not executable (chmod +x it)";
  }
  if (problem !== undefined) {
    throw new UsageError(
      `the opencode binary ${JSON.stringify(binary)} ${problem}; pass the right \`binary\` or set OPENCODE_BIN`,
    );
  }
}
