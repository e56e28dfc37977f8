import { describe, expect, it } from "vitest";
import { isMessageId, mintMessageId } from "./message-id.js";

describe("mintMessageId", () => {
  it("mints ids of OpenCode's shape, with its time digits", () => {
    // 1.18.33 minted msg_2304cc9e0001TypEbjSzPahyfr at 1796106668512 (the first that ms).
    const id = mintMessageId(1796106668512);
    expect(isMessageId(id)).toBe(true);
    expect(id.slice(0, 16)).toBe("msg_2304cc9e0001");
  });

  it("mints ascending ids, also within one millisecond", () => {
    const ids = [mintMessageId(1_000), mintMessageId(1_000), mintMessageId(1_001)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(3);
  });
});
