/**
 * A sidecar's relay identity kept in a file, created on first use: its id must outlive a
 * restart, or every client would have to learn a new one. The file holds the secret key, so
 * it is created owner-only (0600, in a 0700 directory) and refused when others may read it,
 * as ssh refuses such a private key.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UsageError } from "../errors.js";
import { describeError } from "../util/describe-error.js";
import { bridgeDataDir } from "../util/user-data-dir.js";
import { generateRelayIdentity, type RelayIdentity, relayIdentityOf } from "./relay-identity.js";

/** Where `ocb serve --relay` will keep its identity unless told otherwise. */
export function defaultRelayIdentityPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(bridgeDataDir(env), "relay-identity.json");
}

/** The identity in `path`, made and written there first when there is no such file. */
export function loadOrCreateRelayIdentity(path: string): RelayIdentity {
  try {
    const identity = generateRelayIdentity();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // `wx`: never overwrite; two processes starting at once both end up with the first's key.
    writeFileSync(path, fileTextOf(identity), { mode: 0o600, flag: "wx" });
    return identity;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new UsageError(`cannot create the relay identity ${path}: ${describeError(error)}`, {
        cause: error,
      });
    }
  }
  return readRelayIdentity(path);
}

export function readRelayIdentity(path: string): RelayIdentity {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new UsageError(
        `the relay identity ${path} can be read by others (mode ${mode.toString(8)}): chmod 600 ${path}`,
      );
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read the relay identity ${path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  const secretKey = secretKeyIn(text);
  if (secretKey === undefined) {
    throw new UsageError(`the relay identity ${path} is not one (a JSON file with secretKey)`);
  }
  return relayIdentityOf(secretKey);
}

function fileTextOf(identity: RelayIdentity): string {
  const secretKey = Buffer.from(identity.secretKey).toString("base64url");
  return `${JSON.stringify({ version: 1, secretKey })}\n`;
}

function secretKeyIn(text: string): Uint8Array | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const encoded = (parsed as { secretKey?: unknown }).secretKey;
    if (typeof encoded !== "string") return undefined;
    const bytes = Buffer.from(encoded, "base64url");
    return bytes.length === 32 ? new Uint8Array(bytes) : undefined;
  } catch {
    return undefined;
  }
}
