/**
 * The TCP ports a process listens on (Linux): its open sockets (`/proc/PID/fd`) matched by
 * inode with the listening entries of `/proc/PID/net/tcp` and `tcp6`.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const LISTEN_STATE = "0A";

export function listeningTcpPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined) inodes.add(inode);
    } catch {
      // Closed between the listing and the read.
    }
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1);
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== LISTEN_STATE || inode === undefined || !inodes.has(inode)) continue;
      ports.push(Number.parseInt(local?.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}

/**
 * Which of the process's listening ports (on loopback) serve a sidecar's API to `token`: a
 * sidecar on a Unix socket has none. Each call is bounded by `boundMs`.
 */
export async function sidecarApiPorts(
  pid: number,
  token: string,
  boundMs: number,
): Promise<number[]> {
  const serving: number[] = [];
  for (const port of listeningTcpPorts(pid)) {
    const answer = await fetch(`http://127.0.0.1:${port}/v1/sessions`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(boundMs),
    }).catch(() => undefined);
    if (answer?.status === 200) serving.push(port);
    await answer?.body?.cancel();
  }
  return serving;
}
