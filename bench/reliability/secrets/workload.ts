/**
 * The secrets scan's own workload: everything a user could write, with secrets in play. One
 * scripted model, its provider configured with an API key, behind both a sidecar (the CLI,
 * `sidecar-workload.ts`) and a library bridge (`library-workload.ts`), run side by side.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoProviderConfig } from "../../../src/testing/demo-provider.js";
import { startScriptedModel } from "../../../src/testing/scripted-model/index.js";
import { runLibraryWorkload } from "./library-workload.js";
import { runSidecarWorkload } from "./sidecar-workload.js";

export interface WorkloadDone {
  /** Turns that completed, by the sidecar and by the library. */
  sidecarTurns: number;
  libraryTurns: number;
  /** Processes either left running after its close. */
  leaked: number;
}

export async function runSecretsWorkload(work: {
  workDir: string;
  turns: number;
  secret(value: string, what?: string): void;
}): Promise<WorkloadDone> {
  const apiKey = `sk-scan-${randomBytes(20).toString("hex")}`;
  work.secret(apiKey, "the provider API key");
  const model = await startScriptedModel();
  // The config file holds the key by the user's own choice: it is input, kept outside the
  // suite's files (what is scanned is what the bridge and the sidecar write).
  const configDir = mkdtempSync(join(tmpdir(), "ocb-scan-config-"));
  try {
    const demo = demoProviderConfig(model.url);
    demo.provider.demo.options.apiKey = apiKey;
    const config = { ...demo };
    const configFile = join(configDir, "opencode.json");
    writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    // Both run to their end (and close what they started) even when the other fails.
    const [sidecar, library] = await settledBoth(
      runSidecarWorkload({
        workDir: work.workDir,
        configFile,
        turns: work.turns,
        secret: work.secret,
      }),
      runLibraryWorkload({
        workDir: work.workDir,
        config,
        apiKey,
        turns: work.turns,
        secret: work.secret,
      }),
    );
    return {
      sidecarTurns: sidecar.turns,
      libraryTurns: library.turns,
      leaked: sidecar.leaked + library.leaked,
    };
  } finally {
    await model.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

async function settledBoth<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === "rejected") throw first.reason;
  if (second.status === "rejected") throw second.reason;
  return [first.value, second.value];
}
