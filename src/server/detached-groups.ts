/**
 * The process groups that a process's descendants moved into. OpenCode starts a tool's shell
 * detached (`setsid`), so a signal to the server's or `opencode run`'s group misses it and a
 * `sleep 600` a tool started would outlive an interrupted run. They are found by parent pid,
 * which only works while their parents live: ask before the first signal. Linux only (elsewhere
 * there is no /proc to walk, and nothing is found).
 */
import { runningProcStats } from "../util/process-liveness.js";

/** Groups (other than `pid`'s own) of the running processes below `pid`. */
export function detachedGroupsBelow(pid: number): number[] {
  const children = childrenByParent();
  const groups = new Set<number>();
  const queue = [pid];
  for (let parent = queue.pop(); parent !== undefined; parent = queue.pop()) {
    for (const child of children.get(parent) ?? []) {
      queue.push(child.pid);
      if (child.pgrp !== pid && child.pgrp > 0) groups.add(child.pgrp);
    }
  }
  return [...groups];
}

function childrenByParent(): Map<number, { pid: number; pgrp: number }[]> {
  const children = new Map<number, { pid: number; pgrp: number }[]>();
  for (const { pid, stat } of runningProcStats() ?? []) {
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid, pgrp: stat.pgrp });
    children.set(stat.ppid, siblings);
  }
  return children;
}
