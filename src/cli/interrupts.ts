/**
 * Ctrl-C and SIGTERM for the long-running commands (`ocb run`, `ocb serve`), handled one way:
 * the first asks for a clean stop (an abort signal every phase takes); the second means the
 * user will not wait, so the servers this process started are killed (their whole process
 * groups, so none is left behind) and the process exits at once with the conventional 130.
 */
import { killLiveGroupsNow } from "../server/opencode-process.js";
import { stopWithParent } from "./parent-watch.js";

/** The exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT). */
export const INTERRUPTED_EXIT_CODE = 130;

export interface Interrupts {
  /** Aborted on the first interrupt. */
  readonly signal: AbortSignal;
  /**
   * Resolves with what interrupted first: "SIGINT", "SIGTERM", "Ctrl-C" (a key press), or the
   * parent's exit (when started with `OCB_STOP_WITH_PARENT`: src/cli/parent-watch.ts).
   */
  readonly reason: Promise<string>;
  /**
   * Interrupts as a signal would. For a terminal in raw mode, where Ctrl-C arrives as a key
   * and no signal is sent.
   */
  interrupt(what?: string): void;
  /** Removes the signal handlers. */
  dispose(): void;
}

/** Installs the SIGINT and SIGTERM handlers (and the parent watch) until `dispose()`. */
export function handleInterrupts(): Interrupts {
  const controller = new AbortController();
  let resolveReason: (what: string) => void = () => {};
  const reason = new Promise<string>((resolve) => {
    resolveReason = resolve;
  });
  const interrupt = (what = "Ctrl-C"): void => {
    if (controller.signal.aborted) {
      // Asked twice: exit now, but kill the servers' groups first, so that none is left (and
      // remove their temp dirs).
      killLiveGroupsNow();
      process.exit(INTERRUPTED_EXIT_CODE);
    }
    controller.abort(new Error(`interrupted (${what})`));
    resolveReason(what);
  };
  const onSignal = (name: NodeJS.Signals): void => interrupt(name);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const stopWatchingParent = stopWithParent(interrupt);
  return {
    signal: controller.signal,
    reason,
    interrupt,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      stopWatchingParent();
    },
  };
}
