import { describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { revertToBefore } from "./revert-input.js";

/**
 * The walk over message pages, against a stand-in that pages like 1.18.33 (newest first; a
 * cursor that must not be combined with `order`). The real server is in
 * test/e2e/sidecar-revert.test.ts; this covers the pages a short session never has.
 */
function pagedSession(count: number) {
  const ids = Array.from({ length: count }, (_, index) => `msg_${String(index).padStart(4, "0")}`);
  const calls: unknown[] = [];
  const client = {
    v2: {
      session: {
        messages: async (input: { limit: number; order?: string; cursor?: string }) => {
          calls.push({ kind: "messages", ...input });
          if (input.cursor !== undefined && input.order !== undefined) throw new Error("400");
          const newest = [...ids].reverse();
          const start = input.cursor === undefined ? 0 : Number(input.cursor);
          const data = newest.slice(start, start + input.limit).map((id) => ({ id, type: "user" }));
          return { data, cursor: { next: String(start + input.limit) } };
        },
        revert: {
          stage: async (input: { sessionID: string; messageID: string; files: boolean }) => {
            calls.push({ kind: "stage", ...input });
            return { messageID: input.messageID };
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

describe("revertToBefore", () => {
  it("reverts to the message just before the input, across a page boundary", async () => {
    const { client, calls, ids } = pagedSession(120);
    // Newest first, 50 a page: ids[70] is the last of the first page, ids[69] opens the next.
    await revertToBefore(client, "ses", ids[70] ?? "", {});
    expect(calls.filter((call) => (call as { kind: string }).kind !== "messages")).toEqual([
      { kind: "stage", sessionID: "ses", messageID: ids[69], files: true },
      { kind: "commit", sessionID: "ses" },
    ]);
  });

  it("refuses the first input and an unknown one before staging anything", async () => {
    const { client, calls, ids } = pagedSession(60);
    await expect(revertToBefore(client, "ses", ids[0] ?? "", {})).rejects.toThrow(
      /cannot revert to before a session's first message/,
    );
    await expect(revertToBefore(client, "ses", "msg_none", {})).rejects.toThrow(UsageError);
    await expect(revertToBefore(client, "ses", "msg_none", {})).rejects.toThrow(
      /no input msg_none/,
    );
    expect(calls.some((call) => (call as { kind: string }).kind === "stage")).toBe(false);
  });
});
