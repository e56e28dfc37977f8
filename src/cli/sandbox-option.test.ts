import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { sandboxOf } from "./sandbox-option.js";
import { serveConnectionDirectory } from "./serve-connection-file.js";

const root = mkdtempSync(join(tmpdir(), "ocb-sandbox-flags-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sandboxOf", () => {
  it("is none without --sandbox, and refuses the other flags alone", () => {
    const place = { directory: root, store: undefined };
    expect(sandboxOf({ sandboxDeny: [] }, place)).toBeUndefined();
    expect(() => sandboxOf({ sandboxNetwork: "off", sandboxDeny: [] }, place)).toThrow(UsageError);
  });

  it("makes the --allow-dir directories writable in workspace-write, and only there", () => {
    const place = { directory: root, allowDirs: ["/srv/other"], store: undefined };
    expect(sandboxOf({ sandbox: "workspace-write", sandboxDeny: [] }, place)).toMatchObject({
      writable: ["/srv/other"],
    });
    expect(sandboxOf({ sandbox: "read-only", sandboxDeny: [] }, place)).not.toHaveProperty(
      "writable",
    );
  });

  it("hides the store's files, the bridge's secret files, the connection file's directory and what --sandbox-deny names", () => {
    const project = join(root, "project");
    const state = join(root, "state");
    mkdirSync(project);
    writeFileSync(join(root, "tls.key"), "key");
    const sandbox = sandboxOf(
      { sandbox: "workspace-write", sandboxNetwork: "off", sandboxDeny: ["/srv/secrets"] },
      {
        directory: project,
        store: join(state, "store.db"),
        secretFiles: [join(root, "tls.key"), undefined, join(root, "missing")],
      },
    );
    expect(sandbox).toEqual({
      mode: "workspace-write",
      network: "off",
      deny: [
        "/srv/secrets",
        join(state, "store.db"),
        join(state, "store.db-wal"),
        join(state, "store.db-shm"),
        join(root, "tls.key"),
        serveConnectionDirectory(),
      ],
    });
  });

  it("hides no Postgres store (it is not a file)", () => {
    const sandbox = sandboxOf(
      { sandbox: "read-only", sandboxDeny: [] },
      { directory: join(root, "project"), store: "postgres://ocb@db/ocb" },
    );
    expect(sandbox?.deny).toEqual([serveConnectionDirectory()]);
  });
});
