/**
 * `ocb serve --cluster` as a process of its own, attached to a real `opencode serve`: the
 * sidecars of the cluster e2e tests and of the cluster bench (bench/cluster.ts).
 */
import { CLUSTER_SECRET } from "./cluster-secret.js";
import { type RunningOcb, sidecarUrlOf, startOcb } from "./ocb-cli.js";
import type { RealServer } from "./real-server.js";

export interface ClusterProcess {
  /** Its `--cluster-id`. */
  id: string;
  cli: RunningOcb;
  /** Where it listens (`http://127.0.0.1:<port>`). */
  url: string;
}

/**
 * Starts a sidecar in the cluster of `storeUrl`, its `--dir` the real server's directory,
 * `OCB_TOKEN` set to `token`; resolves once it listens (`boundMs`: a safety net). Its process
 * is pushed onto `started` at once, so that the caller stops it even when the start fails.
 */
export async function startClusterProcess(options: {
  id: string;
  storeUrl: string;
  real: RealServer;
  token: string;
  boundMs: number;
  started: RunningOcb[];
}): Promise<ClusterProcess> {
  const { id, real } = options;
  const cli = startOcb(
    [
      ...["serve", "--dir", real.directory, "--store", options.storeUrl],
      ...["--cluster", "--cluster-id", id, "--attach", real.server.url],
      ...["--model", "demo/demo-1", "--no-web"],
    ],
    {
      env: {
        OCB_TOKEN: options.token,
        OCB_ATTACH_PASSWORD: real.server.password ?? "",
        OCB_CLUSTER_SECRET: CLUSTER_SECRET,
      },
    },
  );
  options.started.push(cli);
  return { id, cli, url: await sidecarUrlOf(cli, options.boundMs) };
}

/** SIGKILLs the process group of each that still runs, and waits for them to exit. */
export async function killClusterProcesses(clis: readonly RunningOcb[]): Promise<void> {
  for (const cli of clis) {
    try {
      process.kill(-cli.pid, "SIGKILL");
    } catch {
      // gone already (killed on purpose)
    }
  }
  await Promise.all(clis.map((cli) => cli.exited));
}
