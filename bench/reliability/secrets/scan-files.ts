/**
 * The scan: every file under a directory, read as bytes, searched for every form of every
 * secret. A finding names the file and which secret (by its label and form), never the secret.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { secretForms } from "./secret-forms.js";

export interface SecretFinding {
  /** The file, relative to the scanned directory. */
  file: string;
  /** Which secret: its label (`secret 3 of 9`, or the name the caller gave it). */
  secret: string;
  form: string;
}

export interface ScanResult {
  files: number;
  bytes: number;
  secrets: number;
  /** Forms searched over all secrets. */
  forms: number;
  findings: SecretFinding[];
}

function* filesUnder(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

/** Scans `directory` for `secrets` (label → value). */
export function scanForSecrets(
  directory: string,
  secrets: ReadonlyMap<string, string>,
): ScanResult {
  const searched = [...secrets].map(([label, value]) => ({ label, forms: secretForms(value) }));
  const result: ScanResult = {
    files: 0,
    bytes: 0,
    secrets: secrets.size,
    forms: searched.reduce((sum, secret) => sum + secret.forms.length, 0),
    findings: [],
  };
  for (const path of filesUnder(directory)) {
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch {
      continue; // removed while we looked (a scenario's temp file): nothing left to leak
    }
    result.files++;
    result.bytes += content.length;
    for (const { label, forms } of searched) {
      const form = forms.find((candidate) => content.includes(candidate.bytes));
      if (form !== undefined) {
        result.findings.push({ file: relative(directory, path), secret: label, form: form.form });
      }
    }
  }
  return result;
}

/** Labels the secrets by who told them and what they are; unnamed ones get a number. */
export function labelled(
  secrets: Iterable<string>,
  sources: ReadonlyMap<string, string>,
): Map<string, string> {
  const labels = new Map<string, string>();
  for (const value of secrets) {
    const source = sources.get(value) ?? "an unnamed scenario";
    const label = labels.has(source) ? `${source} (${labels.size + 1})` : source;
    labels.set(label, value);
  }
  return labels;
}
