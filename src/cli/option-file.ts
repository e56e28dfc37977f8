/** Reading a file an option names (a secret, a certificate) as text. */
import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";

/** The contents of `file`; a usage error that says which option and why, never a stack. */
export function readOptionFile(flag: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new UsageError(`${flag} ${file} cannot be read (${reason}); pass a readable file`, {
      cause: error,
    });
  }
}
