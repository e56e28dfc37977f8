import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hexKey } from "../../../test/support/store-keys.js";
import { UsageError } from "../../errors.js";
import { readStoreKeyFile } from "./key-file.js";
import { derivedKeyId, parseStoreKeys } from "./store-keys.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-keys-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("parseStoreKeys", () => {
  it("reads id:key pairs newest first, in hex or base64, and names a bare key by its hash", () => {
    const base64 = Buffer.alloc(32, 0x22).toString("base64");
    const ring = parseStoreKeys(`new:${base64}, old:${hexKey(0x11)},${hexKey(0x33)}`, "X");
    expect(ring.keys.map((key) => key.id)).toEqual([
      "new",
      "old",
      derivedKeyId(new Uint8Array(32).fill(0x33)),
    ]);
    expect(ring.keys[0]?.key).toEqual(new Uint8Array(32).fill(0x22));
    expect(derivedKeyId(new Uint8Array(32).fill(0x33))).toMatch(/^k[0-9a-f]{12}$/);
  });

  it("refuses short keys, bad ids and twice the same id, without quoting the key", () => {
    const short = "abcd".repeat(8);
    expect(() => parseStoreKeys(`k1:${short}`, "OCB_STORE_KEY")).toThrow(UsageError);
    try {
      parseStoreKeys(`k1:${short}`, "OCB_STORE_KEY");
    } catch (error) {
      expect(String(error)).not.toContain(short);
      expect(String(error)).toMatch(/OCB_STORE_KEY's key #1 is not 32 bytes/);
    }
    expect(() => parseStoreKeys(`a b:${hexKey(1)}`, "X")).toThrow(/is 1-64 letters/);
    expect(() => parseStoreKeys(`k:${hexKey(1)},k:${hexKey(2)}`, "X")).toThrow(/names key k twice/);
    expect(() => parseStoreKeys(" , ", "X")).toThrow(/holds no key/);
  });
});

describe("readStoreKeyFile", () => {
  it("reads a private file (keys on lines or comma-separated)", () => {
    const file = join(dir, "key");
    writeFileSync(file, `k2:${hexKey(2)}\nk1:${hexKey(1)}\n`, { mode: 0o600 });
    expect(readStoreKeyFile(file).keys.map((key) => key.id)).toEqual(["k2", "k1"]);
  });

  it("refuses a file others can read, as ssh does", () => {
    const file = join(dir, "key");
    writeFileSync(file, hexKey(1));
    chmodSync(file, 0o640);
    expect(() => readStoreKeyFile(file)).toThrow(/can be read by others \(mode 640\): chmod 600/);
  });
});
