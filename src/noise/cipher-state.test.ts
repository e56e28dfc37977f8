import { readdirSync, readFileSync } from "node:fs";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { CipherState } from "./cipher-state.js";
import { chachaNonce, EMPTY, MAX_NONCE } from "./noise-crypto.js";
import { NoiseError } from "./noise-error.js";

const key = () => crypto.getRandomValues(new Uint8Array(32));

describe("the CipherState", () => {
  it("lays the nonce out as 4 zero bytes and a 64-bit little-endian counter", () => {
    expect(bytesToHex(chachaNonce(1n))).toBe("000000000100000000000000");
    expect(bytesToHex(chachaNonce(0x0102030405060708n))).toBe("000000000807060504030201");
  });

  it("passes plaintext through while it has no key", () => {
    const plain = new Uint8Array([1, 2, 3]);
    expect(new CipherState().encryptWithAd(EMPTY, plain)).toEqual(plain);
  });

  it("does not advance the nonce on a failed decryption (spec 5.1)", () => {
    const k = key();
    const sender = new CipherState(k);
    const receiver = new CipherState(k);
    const message = sender.encryptWithAd(EMPTY, new Uint8Array([7]));
    const tampered = Uint8Array.from(message);
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    expect(() => receiver.decryptWithAd(EMPTY, tampered)).toThrow(NoiseError);
    // Had the nonce moved on, the genuine message would not decrypt now.
    expect(receiver.decryptWithAd(EMPTY, message)).toEqual(new Uint8Array([7]));
  });

  it("uses nonce 2^64-2 and then refuses: 2^64-1 is reserved", () => {
    const k = key();
    const sender = new CipherState(k);
    const receiver = new CipherState(k);
    sender.setNonceForTest(MAX_NONCE - 1n);
    receiver.setNonceForTest(MAX_NONCE - 1n);
    expect(receiver.decryptWithAd(EMPTY, sender.encryptWithAd(EMPTY, new Uint8Array(1)))).toEqual(
      new Uint8Array(1),
    );
    expect(() => sender.encryptWithAd(EMPTY, new Uint8Array(1))).toThrow(/2\^64-1 is reserved/);
    expect(() => receiver.decryptWithAd(EMPTY, new Uint8Array(17))).toThrow(/2\^64-1 is reserved/);
  });
});

describe("src/noise stays isomorphic", () => {
  it("no module imports node:* or uses Buffer", () => {
    const dir = new URL(".", import.meta.url);
    const modules = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    expect(modules.length).toBeGreaterThan(5);
    for (const file of modules) {
      const source = readFileSync(new URL(file, dir), "utf8");
      expect(source, file).not.toMatch(/from "node:|require\(|\bBuffer\b|\bprocess\./);
    }
  });
});
