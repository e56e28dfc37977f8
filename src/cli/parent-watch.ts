/**
 * A command started by a parent that wants it gone when it dies (`npm start` runs `ocb serve`
 * in a process group of its own, so that one Ctrl-C is not delivered twice; a `kill -9` of the
 * parent would then leave the sidecar, its OpenCode server and keeper running, reparented to
 * init). The parent names itself in `OCB_STOP_WITH_PARENT`; once this process's parent is
 * another one (it died: the orphan was reparented), the command is interrupted as by a
 * SIGTERM: a clean stop.
 */

/** The variable a parent sets to its own pid. */
export const STOP_WITH_PARENT_ENV = "OCB_STOP_WITH_PARENT";
const CHECK_EVERY_MS = 500;

/**
 * Calls `onParentGone` once when the parent named in the environment is no longer this
 * process's parent; a no-op without the variable. Removes the variable, so that the processes
 * this one starts do not watch a parent that is not theirs. Gives what stops the watch.
 */
export function stopWithParent(onParentGone: (what: string) => void): () => void {
  const named = process.env[STOP_WITH_PARENT_ENV];
  delete process.env[STOP_WITH_PARENT_ENV];
  if (named === undefined || named === "") return () => {};
  const parent = Number(named);
  if (!Number.isSafeInteger(parent) || parent <= 0) return () => {};
  const check = (): void => {
    // `process.ppid` asks the OS each time: it changes when the parent dies.
    if (process.ppid === parent) return;
    clearInterval(timer);
    onParentGone(`the parent process ${parent} exited`);
  };
  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref();
  check();
  return () => clearInterval(timer);
}
