/**
 * A process a test started must not outlive the test process: `kill` runs on its exit, and on
 * SIGINT or SIGTERM before the signal is raised again (so the process still ends by it).
 */
export function killOnExit(kill: () => void): { dispose(): void } {
  const onSignal = (signal: NodeJS.Signals): void => {
    kill();
    process.off(signal, onSignal);
    process.kill(process.pid, signal);
  };
  process.on("exit", kill);
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    dispose() {
      process.off("exit", kill);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
