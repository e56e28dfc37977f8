/**
 * A heap snapshot of a running `ocb` started with `--heapsnapshot-signal=SIGUSR2
 * --diagnostic-dir=<dir>` in its NODE_OPTIONS, as text once written whole: every string the
 * process holds is in it (Buffers' bytes are not), so a test can check a secret is not.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type RunningOcb, untilOcb } from "./ocb-cli.js";

/** NODE_OPTIONS that let `heapSnapshotText` take a snapshot into `dir`. */
export function heapSnapshotOptions(dir: string): string {
  return `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}`;
}

export async function heapSnapshotText(cli: RunningOcb, dir: string): Promise<string> {
  const snapshots = () => readdirSync(dir).filter((name) => name.endsWith(".heapsnapshot"));
  const before = snapshots().length;
  process.kill(cli.pid, "SIGUSR2");
  await untilOcb("the heap snapshot", cli, () => snapshots().length > before, 60_000);
  const path = join(dir, snapshots().at(-1) ?? "");
  let size = -1;
  await untilOcb(
    "the heap snapshot to be written",
    cli,
    () => {
      const now = readFileSync(path).length;
      const done = now > 0 && now === size && readFileSync(path, "utf8").endsWith("}");
      size = now;
      return done;
    },
    60_000,
  );
  return readFileSync(path, "utf8");
}
