/**
 * End to end: attachments through the runtime, against the real 1.18.33 binary and the
 * scripted model (which records what OpenCode sent it): an image reaches the model request on
 * every backend that takes images, and a path outside the session directory is refused before
 * any call.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BackendKind } from "../../src/backends/backend.js";
import { UsageError } from "../../src/errors.js";
import { Bridge } from "../../src/runtime/bridge.js";
import { demoProviderConfig } from "../../src/testing/demo-provider.js";
import { type ScriptedModel, startScriptedModel } from "../../src/testing/scripted-model/index.js";
import { trackProcess } from "../support/process-tracker.js";

// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

let model: ScriptedModel;
let root: string;
beforeAll(async () => {
  model = await startScriptedModel();
  root = mkdtempSync(join(tmpdir(), "ocb-attach-"));
});
afterAll(async () => {
  await model?.close();
  rmSync(root, { recursive: true, force: true });
});

for (const backend of ["serve", "serve-legacy", "subprocess"] as BackendKind[]) {
  describe(`attachments on the ${backend} backend`, () => {
    let bridge: Bridge;
    let directory: string;
    beforeAll(async () => {
      directory = join(root, backend);
      mkdirSync(directory);
      writeFileSync(join(directory, "pixel.png"), PNG);
      bridge = await Bridge.start({
        directory,
        backend,
        config: { ...demoProviderConfig(model.url) },
        model: { providerID: "demo", modelID: "demo-1" },
      });
      if (backend !== "subprocess") trackProcess(bridge.server.pid, `opencode serve (${backend})`);
    });
    afterAll(async () => {
      await bridge?.close();
    });

    it("sends an image file to the model, and keeps its path in the transcript", async () => {
      const session = await bridge.createSession();
      const marker = `[[reply seen ${backend}]]`;
      const turn = await session.send(marker, { delivery: "queue", files: ["pixel.png"] });
      expect(await turn.done()).toMatchObject({ outcome: "completed", text: `seen ${backend}` });
      const request = model.requests.find((recorded) => recorded.lastUserText.includes(marker));
      const image = request?.attachments.find((part) => part.mime === "image/png");
      expect(image?.url).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
      const admitted = (await session.transcript()).find(
        (event) => event.type === "input.admitted",
      );
      expect(admitted?.data).toMatchObject({ files: [join(directory, "pixel.png")] });
      expect(JSON.stringify(await session.transcript())).not.toContain(PNG.toString("base64"));
      await session.close();
    });

    it("refuses a path outside the session directory before any call", async () => {
      const session = await bridge.createSession();
      const before = model.requests.length;
      writeFileSync(join(root, "secret.txt"), "secret");
      const sent = session.send("[[reply no]]", { delivery: "queue", files: ["../secret.txt"] });
      await expect(sent).rejects.toThrow(UsageError);
      await expect(sent).rejects.toThrow(/outside/);
      expect(await session.transcript()).toEqual([]);
      expect(model.requests.length).toBe(before);
      await session.close();
    });
  });
}
