/**
 * The CLI on an encrypted store: the keys from OCB_STORE_KEY or --store-key-file, clear
 * refusals without them, `ocb export` in clear only with --plaintext, and `ocb store rekey`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ocbInProcess } from "../../test/support/ocb-in-process.js";
import { record, storeEvent } from "../../test/support/store-contract.js";
import { hexKey, K1_TEXT, K2_TEXT, PLANTED } from "../../test/support/store-keys.js";
import { openStore } from "../store/open-store.js";

let dir: string;
let path: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "ocb-enc-cli-"));
  path = join(dir, "store.db");
  const store = await openStore(path, { storeKey: K1_TEXT });
  await store.saveSession({ ...record, title: `About ${PLANTED}` });
  await store.append(record.id, [
    storeEvent("e1", "turn.started", { inputId: "in_1" }),
    storeEvent("e2", "text.ended", { partId: "p1", text: PLANTED }),
  ]);
  await store.close();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the CLI on an encrypted store", () => {
  it("lists its sessions with the key, and says what to do without it", async () => {
    const listed = await ocbInProcess(["sessions", "--store", path], { OCB_STORE_KEY: K1_TEXT });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(PLANTED);
    const none = await ocbInProcess(["sessions", "--store", path]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/is encrypted \(key k1\), and no key was given/);
    const wrong = await ocbInProcess(["sessions", "--store", path], { OCB_STORE_KEY: K2_TEXT });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/encrypted with key k1; the keys given hold k2/);
    expect(wrong.stderr).not.toContain(hexKey(0x22));
  });

  it("reads the keys from a private file only", async () => {
    const file = join(dir, "keys");
    writeFileSync(file, `${K1_TEXT}\n`, { mode: 0o644 });
    const open = await ocbInProcess(["sessions", "--store", path, "--store-key-file", file]);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/can be read by others \(mode 644\): chmod 600/);
    rmSync(file);
    writeFileSync(file, `${K1_TEXT}\n`, { mode: 0o600 });
    const read = await ocbInProcess(["show", record.id, "--store", path, "--store-key-file", file]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain(PLANTED);
  });

  it("exports in clear only when asked to", async () => {
    const env = { OCB_STORE_KEY: K1_TEXT };
    const refused = await ocbInProcess(["export", record.id, "--store", path], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /is encrypted, and an export is written in clear: add --plaintext/,
    );
    expect(refused.stdout).toBe("");
    const exported = await ocbInProcess(["export", record.id, "--store", path, "--plaintext"], env);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(PLANTED);
  });

  it("moves a session from an encrypted store into a new one under another key", async () => {
    const exported = await ocbInProcess(["export", record.id, "--store", path, "--plaintext"], {
      OCB_STORE_KEY: K1_TEXT,
    });
    const file = join(dir, "t.ndjson");
    writeFileSync(file, exported.stdout, { mode: 0o600 });
    const target = join(dir, "other.db");
    const imported = await ocbInProcess(["import", file, "--store", target], {
      OCB_STORE_KEY: K2_TEXT,
    });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain(`imported ${record.id}: 2 events`);
    const shown = await ocbInProcess(["show", record.id, "--store", target], {
      OCB_STORE_KEY: K2_TEXT,
    });
    expect(shown.stdout).toContain(PLANTED);
    expect(readFileSync(target).includes(PLANTED)).toBe(false);
  });

  it("rekeys to the newest key, naming the key that can go", async () => {
    const rekeyed = await ocbInProcess(["store", "rekey", "--store", path, "--batch", "1"], {
      OCB_STORE_KEY: `${K2_TEXT},${K1_TEXT}`,
    });
    expect(rekeyed.code).toBe(0);
    expect(rekeyed.stderr).toContain(`rekey ${path}: 1 events`);
    expect(rekeyed.stdout).toContain(
      "2 events and 1 titles now under key k2; no row needs key k1 any more: drop it",
    );
    const k2 = await ocbInProcess(["sessions", "--store", path], { OCB_STORE_KEY: K2_TEXT });
    expect(k2.stdout).toContain(PLANTED);
  });
});
