import type { Project, SessionInfo } from "opencode-bridge/client";
import { describe, expect, it } from "vitest";
import { orderedProjects, projectName, shownSessions } from "./project-order.js";

const project = (directory: string, extra: Partial<Project> = {}): Project => ({
  directory,
  default: false,
  allowed: true,
  sessions: 0,
  ...extra,
});

const session = (id: string, extra: Partial<SessionInfo> = {}): SessionInfo => ({
  id,
  directory: "/w",
  backend: "serve",
  open: false,
  state: "released",
  running: false,
  lastSeq: 0,
  ...extra,
});

describe("the side list's order", () => {
  it("puts the default project first, then the one with the newest session", () => {
    const ordered = orderedProjects([
      project("/a", { lastCreatedAt: 1 }),
      project("/b", { lastCreatedAt: 5 }),
      project("/c", { default: true }),
    ]);
    expect(ordered.map((p) => p.directory)).toEqual(["/c", "/b", "/a"]);
  });

  it("shows the most recently active sessions first, and never a deleted one", () => {
    const shown = shownSessions([
      session("old", { createdAt: 1 }),
      session("busy", { createdAt: 0, lastActivityAt: 9 }),
      session("gone", { createdAt: 10, state: "killed" }),
    ]);
    expect(shown.map((s) => s.id)).toEqual(["busy", "old"]);
  });

  it("names a project by its directory's last part", () => {
    expect(projectName("/home/me/code/app/")).toBe("app");
    expect(projectName("C:\\work\\site")).toBe("site");
    expect(projectName("/")).toBe("/");
  });
});
