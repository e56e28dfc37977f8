/** Reading an OpenCode config file given on the command line. */
import { readFileSync } from "node:fs";
import { UsageError } from "../errors.js";

/** Reads a JSON object from `path`, or throws a UsageError that says what is wrong with it. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`config file ${path} must hold a JSON object (an OpenCode config)`);
  }
  return value as Record<string, unknown>;
}
