import { describe, expect, it } from "vitest";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { MAX_CHANGED_FILES } from "../file-changes.js";
import { sessionChanges, sessionSteps, vcsStatus } from "./session-changes.js";

/**
 * Against a stand-in that answers like 1.18.33 (messages newest first, one page; `/vcs/*` the
 * working tree against HEAD). The real server is in test/e2e/sidecar-changes.test.ts.
 */
function session(
  messages: {
    id: string;
    type: string;
    snapshot?: { files?: string[]; start?: string; end?: string };
  }[],
  tree: { file: string; additions: number; deletions: number; status?: string; patch?: string }[],
) {
  const client = {
    v2: {
      session: {
        messages: async () => ({ data: [...messages].reverse() }),
      },
    },
    vcs: {
      status: async () => tree.map(({ patch: _patch, ...file }) => file),
      diff: async () => tree,
    },
  } as unknown as OpencodeClient;
  return client;
}

// Oldest first: two turns that change files, a turn that changes none, steps without snapshots.
const MESSAGES = [
  { id: "msg_u1", type: "user" },
  { id: "msg_a1", type: "assistant", snapshot: { files: ["a.txt"], start: "t0", end: "t1" } },
  {
    id: "msg_a2",
    type: "assistant",
    snapshot: { files: ["b.txt", "a.txt"], start: "t1", end: "t2" },
  },
  { id: "msg_u2", type: "user" },
  { id: "msg_a3", type: "assistant", snapshot: { files: [], start: "t2", end: "t2" } },
  { id: "msg_s", type: "agent-switched" },
  { id: "msg_u3", type: "user" },
  { id: "msg_a4", type: "assistant", snapshot: { files: ["c.txt"], start: "t2", end: "t3" } },
  { id: "msg_a5", type: "assistant" },
];

describe("sessionSteps", () => {
  const steps = (inputIds?: string[], undone?: string) =>
    sessionSteps(
      session(MESSAGES, []),
      "ses",
      {
        ...(inputIds === undefined ? {} : { inputIds: new Set(inputIds) }),
        ...(undone === undefined ? {} : { undone }),
      },
      {},
    );

  it("names the files of each turn's steps once, oldest first, and the trees around them", async () => {
    expect(await steps()).toEqual({
      paths: ["a.txt", "b.txt", "c.txt"],
      span: { from: "t0", to: "t3" },
    });
    expect(await steps(["msg_u1"])).toEqual({
      paths: ["a.txt", "b.txt"],
      span: { from: "t0", to: "t2" },
    });
    expect(await steps(["msg_u2"])).toEqual({ paths: [], span: { from: "t2", to: "t2" } });
    expect(await steps(["msg_u3"])).toEqual({ paths: ["c.txt"], span: { from: "t2", to: "t3" } });
    // A turn an input steered into: both inputs' steps.
    expect(await steps(["msg_u2", "msg_u3"])).toEqual({
      paths: ["c.txt"],
      span: { from: "t2", to: "t3" },
    });
  });

  it("leaves out an undone input and what followed it", async () => {
    expect(await steps(undefined, "msg_u2")).toEqual({
      paths: ["a.txt", "b.txt"],
      span: { from: "t0", to: "t2" },
    });
  });

  it("has no span where OpenCode kept no trees (outside a git worktree)", async () => {
    const client = session(
      [
        { id: "msg_u1", type: "user" },
        { id: "msg_a1", type: "assistant", snapshot: { files: [] } },
      ],
      [],
    );
    expect(await sessionSteps(client, "ses", {}, {})).toEqual({ paths: [] });
  });
});

describe("sessionChanges", () => {
  const tree = [
    { file: "b.txt", additions: 1, deletions: 0, status: "added", patch: "+b\n" },
    { file: "unrelated.txt", additions: 5, deletions: 5, status: "modified", patch: "…" },
    { file: "a.txt", additions: 2, deletions: 1, status: "modified", patch: "-x\n+y\n+z\n" },
  ];

  it("gives the turn's files with their lines and diffs against the last commit, no other file", async () => {
    const client = session(MESSAGES, tree);
    const changes = await sessionChanges(
      client,
      "ses",
      { inputIds: new Set(["msg_u1"]), patches: true },
      {},
    );
    expect(changes).toEqual({
      files: [
        { path: "a.txt", status: "modified", additions: 2, deletions: 1, patch: "-x\n+y\n+z\n" },
        { path: "b.txt", status: "added", additions: 1, deletions: 0, patch: "+b\n" },
      ],
    });
    // c.txt was changed back (it no longer differs from the last commit): nothing to show.
    expect(await sessionChanges(client, "ses", { patches: false }, {})).toEqual({
      files: [
        { path: "a.txt", status: "modified", additions: 2, deletions: 1 },
        { path: "b.txt", status: "added", additions: 1, deletions: 0 },
      ],
    });
  });

  it("names the first MAX_CHANGED_FILES files and counts the rest", async () => {
    const names = Array.from({ length: MAX_CHANGED_FILES + 2 }, (_, index) => `f${index}.txt`);
    const client = session(
      [
        { id: "msg_u1", type: "user" },
        { id: "msg_a1", type: "assistant", snapshot: { files: names } },
      ],
      names.map((file) => ({ file, additions: 1, deletions: 0, status: "added" })),
    );
    const changes = await sessionChanges(client, "ses", { patches: false }, {});
    expect(changes.files).toHaveLength(MAX_CHANGED_FILES);
    expect(changes.moreFiles).toBe(2);
  });
});

describe("vcsStatus", () => {
  it("gives the branch and the changed files; outside a git repository (branch null) neither", async () => {
    const answer = (info: unknown, status: unknown[]) =>
      ({
        vcs: { get: async () => info, status: async () => status },
      }) as unknown as OpencodeClient;
    const status = [{ file: "a.txt", additions: 2, deletions: 0, status: "added" }];
    expect(await vcsStatus(answer({ branch: "main", default_branch: "main" }, status), {})).toEqual(
      { branch: "main", files: [{ path: "a.txt", status: "added", additions: 2, deletions: 0 }] },
    );
    // As 1.18.33 answers in a directory that is no git repository.
    expect(await vcsStatus(answer({ branch: null, default_branch: null }, []), {})).toEqual({
      files: [],
    });
  });
});
