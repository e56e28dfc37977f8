/** Ctrl-C and SIGTERM handling for long-running commands. */

export interface ShutdownWait {
  /** Fires on the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Resolves with the name of the signal that asked us to stop. */
  reason: Promise<string>;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Installs SIGINT/SIGTERM handlers. The first signal starts a clean shutdown; a second one
 * exits at once (the user asked twice), with the conventional 130.
 */
export function waitForShutdownSignal(): ShutdownWait {
  const controller = new AbortController();
  let resolveReason: (name: string) => void = () => {};
  const reason = new Promise<string>((resolve) => {
    resolveReason = resolve;
  });
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new Error(`received ${name}`));
    resolveReason(name);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    reason,
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
