/** The side list's order of projects, and the order of a project's sessions. */
import type { Project, SessionInfo } from "opencode-bridge/client";
import { lastActivity } from "../sessions.js";

/** The default project first, then the one whose newest session is newest. */
export function orderedProjects(projects: readonly Project[]): Project[] {
  return [...projects].sort(
    (a, b) =>
      Number(b.default) - Number(a.default) ||
      (b.lastCreatedAt ?? 0) - (a.lastCreatedAt ?? 0) ||
      a.directory.localeCompare(b.directory),
  );
}

/** Most recently active first, among those loaded; sessions killed (deleted) are not offered. */
export function shownSessions(list: readonly SessionInfo[]): SessionInfo[] {
  return list
    .filter((session) => session.state !== "killed")
    .sort((a, b) => (lastActivity(b) ?? 0) - (lastActivity(a) ?? 0));
}

/** A directory's last part, for a group's heading (the whole path is its tooltip). */
export function projectName(directory: string): string {
  const parts = directory.split(/[\\/]/).filter((part) => part !== "");
  return parts.at(-1) ?? directory;
}
