/**
 * The Chromium of the browser tests and the bench: `@sparticuz/chromium` ships one compressed
 * inside the npm package (no download at run time); `executablePath()` unpacks it into the temp
 * dir once and finds it there afterwards.
 */
import chromium from "@sparticuz/chromium";

/**
 * Flags of @sparticuz/chromium that are made for AWS Lambda and would make the tests less
 * honest or less stable: no same-origin policy, mixed content allowed, one process for all.
 */
const DROPPED_FLAGS = new Set([
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--single-process",
  "--no-zygote",
  "--headless='shell'",
]);

/** Unpacks the shipped Chromium (once; later calls find it in the temp dir). */
export function chromiumExecutable(): Promise<string> {
  return chromium.executablePath();
}

/** The command-line flags to launch it with (headless, no sandbox: no setuid helper here). */
export function chromiumFlags(): string[] {
  return chromium.args.filter((flag) => !DROPPED_FLAGS.has(flag));
}
