/** A bound on one wait in a test: a hang fails naming what was awaited, never a speed check. */

/**
 * `promise`, or a rejection naming `what` once `ms` have passed (the default suits waits
 * inside the test's own process; waits on a real server pass a bound of their own).
 */
export async function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (${ms} ms)`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
