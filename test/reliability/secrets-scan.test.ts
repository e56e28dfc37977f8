/**
 * The reliability suite's secrets scan, short variant: its own workload (a sidecar through the
 * CLI, a library bridge, an export and a recording, every secret told), then its files
 * scanned. And the scan is not vacuous: a secret written raw, URL-encoded, in Basic auth or in
 * base64 at any offset inside other bytes is found, named by its label, never shown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { secretsScanScenario } from "../../bench/reliability/scenarios/secrets-scan.js";
import { labelled, scanForSecrets } from "../../bench/reliability/secrets/scan-files.js";
import { createSuiteFiles, scenarioContext } from "../../bench/reliability/suite-files.js";

describe("reliability: secrets scan (short variant)", () => {
  it("finds no secret in what its workload wrote", async () => {
    const suite = createSuiteFiles();
    try {
      const context = scenarioContext(suite, "secrets-scan", { short: true, seed: 17 });
      const row = await secretsScanScenario.run(context);
      expect(row.notes.find((note) => note.startsWith("FOUND"))).toBeUndefined();
      // The API key, the token, a wrong token, an attach and a Postgres password in ocb serve's
      // environment, and both servers' passwords: all in play while a tool ran `env`.
      expect(suite.secrets.size).toBe(7);
      expect(row.turnsEndedOnce?.once).toBe(row.turnsEndedOnce?.started);
      expect(row).toMatchObject({ crashes: 0, leakedProcesses: 0, passed: true });
    } finally {
      suite.remove();
    }
  }, 120_000);

  it("finds a secret in each form it can be written in, and names the file and the secret", () => {
    const suite = createSuiteFiles();
    try {
      const secret = "s3cret/with+odd=chars-0123456789";
      const context = scenarioContext(suite, "planted", { short: true, seed: 17 });
      context.secret(secret, "the planted token");
      const prefix = Buffer.from("some other bytes ");
      const planted: Record<string, Buffer> = {
        "raw.log": Buffer.from(`token=${secret}\n`),
        "url.log": Buffer.from(`GET /?t=${encodeURIComponent(secret)}`),
        "basic.log": Buffer.from(
          `Authorization: Basic ${Buffer.from(`opencode:${secret}`).toString("base64")}`,
        ),
        "clean.log": Buffer.from("nothing here"),
      };
      for (const offset of [0, 1, 2]) {
        const inside = Buffer.concat([prefix.subarray(0, offset), Buffer.from(secret), prefix]);
        planted[`b64-${offset}.bin`] = Buffer.from(`x${inside.toString("base64")}y`);
        planted[`b64url-${offset}.bin`] = Buffer.from(inside.toString("base64url"));
      }
      mkdirSync(join(context.workDir, "deeper"));
      for (const [name, bytes] of Object.entries(planted)) {
        writeFileSync(join(context.workDir, "deeper", name), bytes);
      }
      const scan = scanForSecrets(suite.dir, labelled(suite.secrets, suite.secretSources));
      expect(scan.files).toBe(Object.keys(planted).length);
      expect(scan.findings.map((finding) => finding.file).sort()).toEqual(
        Object.keys(planted)
          .filter((name) => name !== "clean.log")
          .map((name) => join("planted", "deeper", name))
          .sort(),
      );
      expect(new Set(scan.findings.map((finding) => finding.secret))).toEqual(
        new Set(["planted: the planted token"]),
      );
      expect(JSON.stringify(scan)).not.toContain(secret);
    } finally {
      suite.remove();
    }
  });
});
