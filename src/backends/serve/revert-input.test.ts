import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { MAX_REVERTED_FILES, stagedRevertInput, stageRevertToBefore } from "./revert-input.js";

/**
 * The walk over message pages, against a stand-in that pages like 1.18.33 (newest first; a
 * cursor that must not be combined with `order`). The real server is in
 * test/e2e/sidecar-revert.test.ts; this covers the pages a short session never has.
 */
function pagedSession(count: number, staged: { point?: string; files?: unknown[] } = {}) {
  const ids = Array.from({ length: count }, (_, index) => `msg_${String(index).padStart(4, "0")}`);
  const calls: unknown[] = [];
  // Every third message is the user's; the rest the assistant's.
  const type = (id: string) => (Number(id.slice(4)) % 3 === 0 ? "user" : "assistant");
  const client = {
    v2: {
      session: {
        messages: async (input: { limit: number; order?: string; cursor?: string }) => {
          calls.push({ kind: "messages", ...input });
          if (input.cursor !== undefined && input.order !== undefined) throw new Error("400");
          const newest = [...ids].reverse();
          const start = input.cursor === undefined ? 0 : Number(input.cursor);
          const data = newest
            .slice(start, start + input.limit)
            .map((id) => ({ id, type: type(id) }));
          return { data, cursor: { next: String(start + input.limit) } };
        },
        get: async () => ({
          id: "ses",
          ...(staged.point === undefined ? {} : { revert: { messageID: staged.point } }),
        }),
        revert: {
          stage: async (input: { sessionID: string; messageID: string; files: boolean }) => {
            calls.push({ kind: "stage", ...input });
            return { messageID: input.messageID, files: staged.files };
          },
          commit: async (input: { sessionID: string }) => {
            calls.push({ kind: "commit", ...input });
          },
        },
      },
    },
  } as unknown as OpencodeClient;
  return { client, calls, ids };
}

describe("stageRevertToBefore", () => {
  it("stages the message just before the input, across a page boundary, and commits nothing", async () => {
    const { client, calls, ids } = pagedSession(120);
    // Newest first, 50 a page: ids[70] is the last of the first page, ids[69] opens the next.
    await stageRevertToBefore(client, "ses", ids[70] ?? "", {});
    expect(calls.filter((call) => (call as { kind: string }).kind !== "messages")).toEqual([
      { kind: "stage", sessionID: "ses", messageID: ids[69], files: true },
    ]);
  });

  it("names the files put back, the first MAX_REVERTED_FILES of them, and counts the rest", async () => {
    const files = Array.from({ length: MAX_REVERTED_FILES + 3 }, (_, index) => ({
      path: `f${index}.ts`,
      status: ["added", "modified", "deleted", "renamed"][index % 4],
      additions: index,
      deletions: 1,
      patch: "diff --git …",
    }));
    const { client, ids } = pagedSession(10, { files });
    const staged = await stageRevertToBefore(client, "ses", ids[6] ?? "", {});
    expect(staged.moreFiles).toBe(3);
    expect(staged.files).toHaveLength(MAX_REVERTED_FILES);
    expect(staged.files.slice(0, 4)).toEqual([
      { path: "f0.ts", status: "added", additions: 0, deletions: 1 },
      { path: "f1.ts", status: "modified", additions: 1, deletions: 1 },
      { path: "f2.ts", status: "deleted", additions: 2, deletions: 1 },
      // A status the event has no name for reads as a modification.
      { path: "f3.ts", status: "modified", additions: 3, deletions: 1 },
    ]);
  });

  it("refuses the first input and an unknown one before staging anything", async () => {
    const { client, calls, ids } = pagedSession(60);
    await expect(stageRevertToBefore(client, "ses", ids[0] ?? "", {})).rejects.toThrow(
      /cannot revert to before a session's first message/,
    );
    await expect(stageRevertToBefore(client, "ses", "msg_none", {})).rejects.toThrow(UsageError);
    await expect(stageRevertToBefore(client, "ses", "msg_none", {})).rejects.toThrow(
      /no input msg_none/,
    );
    expect(calls.some((call) => (call as { kind: string }).kind === "stage")).toBe(false);
  });
});

describe("stagedRevertInput", () => {
  it("is the first user message after the staged point, found pages back", async () => {
    // ids[68] is an assistant's; ids[69] the next user message (69 % 3 === 0).
    const { client, ids } = pagedSession(120, { point: "msg_0068" });
    expect(await stagedRevertInput(client, "ses", {})).toBe(ids[69]);
  });

  it("is undefined when nothing is staged", async () => {
    const { client } = pagedSession(12);
    expect(await stagedRevertInput(client, "ses", {})).toBeUndefined();
  });
});
