/** Shared reads: one store read for the same page asked while under way, a new one after. */
import { describe, expect, it } from "vitest";
import { storeEvent } from "../../test/support/store-contract.js";
import type { ReadOptions } from "../store/store.js";
import { SharedReads } from "./shared-reads.js";

describe("SharedReads", () => {
  it("answers the same page asked while a read is under way with that read, and reads again after", async () => {
    const asked: string[] = [];
    const page = [{ ...storeEvent("e1", "text.ended", { partId: "p", text: "t" }), seq: 1 }];
    const reads = new SharedReads({
      read: async (sessionId: string, options: ReadOptions = {}) => {
        asked.push(`${sessionId} after ${options.after} limit ${options.limit}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return page;
      },
    });
    const together = await Promise.all([
      reads.read("ses_a", { after: 0, limit: 500 }),
      reads.read("ses_a", { after: 0, limit: 500 }),
      reads.read("ses_a", { after: 1, limit: 500 }),
      reads.read("ses_b", { after: 0, limit: 500 }),
    ]);
    expect(together[0]).toBe(together[1]);
    expect(asked).toEqual([
      "ses_a after 0 limit 500",
      "ses_a after 1 limit 500",
      "ses_b after 0 limit 500",
    ]);
    await reads.read("ses_a", { after: 0, limit: 500 });
    expect(asked).toHaveLength(4);
  });
});
