/**
 * `ocb serve --relay` on its first start: the identity and paired devices files do not exist
 * yet, and the sandbox hides only files that exist when it starts. They are made first, so
 * the agent's sandbox denies both (the identity's secret is the sidecar's Noise key; whoever
 * writes the devices file adds a device).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sandboxOf } from "./sandbox-option.js";
import { relayFilesForSandbox } from "./serve-relay.js";

const dir = mkdtempSync(join(tmpdir(), "ocb-serve-relay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the relay's files and the sandbox", () => {
  it("are made on a first start, owner-only, and the sandbox denies both", () => {
    const identityPath = join(dir, "keys", "relay-identity.json");
    const files = relayFilesForSandbox({ relays: ["ws://relay.invalid"], identityPath });
    const devicesPath = join(dir, "keys", "paired-devices.json");
    expect(files).toEqual([identityPath, devicesPath]);
    for (const file of files) expect(statSync(file).mode & 0o777).toBe(0o600);
    const sandbox = sandboxOf(
      { sandbox: "workspace-write", sandboxDeny: [] },
      { directory: dir, store: undefined, secretFiles: files },
    );
    expect(sandbox?.deny).toEqual(expect.arrayContaining([identityPath, devicesPath]));
    // A second start reads them as they are.
    expect(relayFilesForSandbox({ relays: ["ws://relay.invalid"], identityPath })).toEqual(files);
  });
});
