import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../../errors.js";
import { Bridge } from "../../runtime/bridge/bridge.js";
import { RunEnvironment } from "./run-environment.js";

const scratch = mkdtempSync(join(tmpdir(), "ocb-run-env-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("RunEnvironment", () => {
  it("refuses a binary that does not exist or cannot run, before anything starts", async () => {
    await expect(RunEnvironment.create({ binary: join(scratch, "nope") })).rejects.toThrow(
      /does not exist; pass the right `binary`/,
    );
    const notExecutable = join(scratch, "opencode");
    writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
    await expect(RunEnvironment.create({ binary: notExecutable })).rejects.toThrow(UsageError);
    await expect(RunEnvironment.create({ binary: scratch })).rejects.toThrow(/is not a file/);
  });

  it("ends a turn failed, with the stderr tail, when `opencode run` exits non-zero silently", async () => {
    const failing = join(scratch, "failing-opencode");
    writeFileSync(failing, "#!/bin/sh\necho 'no such model' >&2\nexit 3\n", { mode: 0o755 });
    const bridge = await Bridge.start({
      directory: scratch,
      backend: "subprocess",
      model: { providerID: "demo", modelID: "demo-1" },
      server: { binary: failing },
    });
    try {
      const session = await bridge.createSession();
      const result = await (await session.send("hi", { delivery: "queue" })).done();
      expect(result).toMatchObject({ outcome: "failed", reason: "process-exited" });
      expect(result.error?.message).toBe("opencode run exited with code 3: no such model");
    } finally {
      await bridge.close();
    }
  });
});
