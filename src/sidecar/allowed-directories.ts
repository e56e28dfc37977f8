/**
 * The project directories a sidecar makes sessions in (`--allow-dir`, by default the bridge's
 * own): each one and everything under it. A client holding the token can run tools wherever a
 * session is, so the places are the operator's choice, not the client's. Symbolic links are
 * resolved on both sides where the directories are on this machine, so that a link inside an
 * allowed directory cannot lead a session out of it.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { isWithin } from "../util/path-within.js";

export class AllowedDirectories {
  /** Absolute, as given (resolved against the working directory). */
  readonly roots: readonly string[];
  readonly #local: boolean;

  /** `local`: the directories are on this machine (links can be resolved). None: none allowed. */
  constructor(roots: readonly string[], local: boolean) {
    this.roots = [...new Set(roots.map((root) => resolve(root)))];
    this.#local = local;
  }

  /** Whether `directory` (absolute) is an allowed directory or lies under one. */
  async allows(directory: string): Promise<boolean> {
    const target = await this.#real(directory);
    for (const root of this.roots) {
      if (isWithin(target, await this.#real(root))) return true;
    }
    return false;
  }

  /** The message for a directory that is not allowed: what to do about it. */
  refusal(directory: string): string {
    const list = this.roots.map((root) => JSON.stringify(root)).join(", ");
    return (
      `directory ${JSON.stringify(directory)} is not one this sidecar makes sessions in ` +
      `(allowed: ${list} and what lies under them); start it with --allow-dir to allow another`
    );
  }

  async #real(path: string): Promise<string> {
    if (!this.#local) return resolve(path);
    try {
      return await realpath(path);
    } catch {
      return resolve(path);
    }
  }
}
