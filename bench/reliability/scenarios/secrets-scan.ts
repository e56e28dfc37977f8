/**
 * Secrets: after every other scenario (`schedule: "last"`), a workload of its own that writes
 * everything a user could (a sidecar's store, logs and export, a library bridge's store, log
 * and recording; `secrets/workload.ts`), then every file under the suite's directory (all
 * scenarios' work dirs) searched for every secret the scenarios told, in the forms it could
 * be written in (`secrets/secret-forms.ts`). Must hold: no secret found in any file. A finding
 * names the file and the secret's label, never the secret.
 */
import type { Scenario, ScenarioContext, ScenarioResult } from "../scenario.js";
import { labelled, type ScanResult, scanForSecrets } from "../secrets/scan-files.js";
import { runSecretsWorkload, type WorkloadDone } from "../secrets/workload.js";

/** Turns the workload runs through the sidecar, and again through the library. */
export const SCAN_TURNS = { full: 4, short: 2 } as const;

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function secretsScanRow(
  scan: ScanResult,
  done: WorkloadDone,
  turns: number,
): ScenarioResult {
  const findings = scan.findings.map(
    (finding) => `${finding.secret} (${finding.form}) in ${finding.file}`,
  );
  const workloadWhole = done.sidecarTurns === turns && done.libraryTurns === turns;
  return {
    load: `${scan.files} files, ${mib(scan.bytes)}, ${scan.secrets} secrets`,
    faultsInjected: 0,
    turnsEndedOnce: { once: done.sidecarTurns + done.libraryTurns, started: 2 * turns },
    crashes: 0,
    leakedProcesses: done.leaked,
    passed: findings.length === 0 && workloadWhole && done.leaked === 0 && scan.secrets > 0,
    notes: [
      `scanned ${scan.files} files (${scan.bytes.toLocaleString("en-US")} bytes) for ${scan.secrets} secrets in ${scan.forms} forms (raw, URL-encoded, JSON-escaped, Basic auth, base64 and base64url at each alignment)`,
      findings.length === 0 ? "no secret found" : `FOUND: ${findings.slice(0, 10).join("; ")}`,
      `its workload: ocb serve (token, attach and Postgres passwords in its environment, managed server password, API key in --config), ${done.sidecarTurns} turns over the typed client (the first runs env in the bash tool), a wrong-token client, ocb export; a library Bridge (password, API key, debug log), ${done.libraryTurns} turns (the first runs env), a RecordingTransport recording`,
    ],
  };
}

export const secretsScanScenario: Scenario = {
  name: "secrets-scan",
  summary:
    "after all scenarios: no password, token or API key in the stores, logs, transcripts or exports",
  schedule: "last",
  async run(context: ScenarioContext) {
    const turns = SCAN_TURNS[context.short ? "short" : "full"];
    context.note(
      `secrets-scan: its workload (${turns} turns through a sidecar and a library bridge)`,
    );
    const done = await runSecretsWorkload({
      workDir: context.workDir,
      turns,
      secret: context.secret,
    });
    const scan = scanForSecrets(
      context.suite.dir,
      labelled(context.suite.secrets, context.suite.secretSources),
    );
    context.note(`secrets-scan: ${scan.files} files, ${scan.findings.length} findings`);
    return secretsScanRow(scan, done, turns);
  },
};
