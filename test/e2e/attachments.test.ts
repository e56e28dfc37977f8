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
import { Bridge } from "../../src/runtime/bridge/bridge.js";
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

    // `opencode run` takes local files only: raw data is for the serve backends.
    const withData = backend === "subprocess" ? it.skip : it;

    withData(
      "sends a text file and a JSON file as text; the turn and the next one complete",
      async () => {
        const session = await bridge.createSession();
        const marker = `[[reply read ${backend}]]`;
        const json = JSON.stringify({ planted: "JSON-CONTENT-7d1" });
        const turn = await session.send(marker, {
          delivery: "queue",
          files: [
            { data: Buffer.from("TEXT-CONTENT-93b\n"), name: "hello.txt", mime: "text/plain" },
            { data: Buffer.from(json), name: "data.json", mime: "application/json" },
          ],
        });
        expect(await turn.done()).toMatchObject({ outcome: "completed", text: `read ${backend}` });
        const request = model.requests.find((recorded) => recorded.lastUserText.includes(marker));
        expect(request?.lastUserText).toContain("TEXT-CONTENT-93b");
        expect(request?.lastUserText).toContain('"planted":"JSON-CONTENT-7d1"');
        expect(request?.attachments ?? []).toEqual([]);
        // The input is what was typed, its files as references: not their text.
        const admitted = (await session.transcript()).find(
          (event) => event.type === "input.admitted",
        );
        expect(admitted?.data).toMatchObject({
          text: marker,
          files: [expect.any(String), expect.any(String)],
        });
        const next = await session.send(`[[reply after ${backend}]]`, { delivery: "queue" });
        expect(await next.done()).toMatchObject({ outcome: "completed" });
        await session.close();
      },
    );

    // The scripted model takes text and images. On /api OpenCode 1.18.33 would send it the PDF
    // anyway, failing that turn and every later one: the bridge refuses it, from the model's
    // catalog entry. Legacy OpenCode puts a note in its place.
    withData(
      "a PDF to a model that takes none: refused on /api, a note on legacy; the session goes on",
      async () => {
        const session = await bridge.createSession();
        const before = model.requests.length;
        const pdf = Buffer.concat([
          Buffer.from("%PDF-1.4\n"),
          Buffer.from([0xe2, 0xe3, 0xcf, 0xd3, 0, 1, 2]),
        ]);
        const sent = session.send(`[[reply pdf ${backend}]]`, {
          delivery: "queue",
          files: [{ data: pdf, name: "doc.pdf" }],
        });
        if (backend === "serve") {
          await expect(sent).rejects.toThrow(
            /doc\.pdf \(application\/pdf\) cannot be sent to demo\/demo-1: it takes text, image input/,
          );
          expect(model.requests.length).toBe(before);
        } else {
          expect(await (await sent).done()).toMatchObject({ outcome: "completed" });
        }
        const next = await session.send(`[[reply after pdf ${backend}]]`, { delivery: "queue" });
        expect(await next.done()).toMatchObject({ outcome: "completed" });
        await session.close();
      },
    );

    it("refuses a text file behind a URL before any call: sent as media it failed every later turn", async () => {
      const session = await bridge.createSession();
      const before = model.requests.length;
      const sent = session.send("[[reply no]]", {
        delivery: "queue",
        files: ["http://127.0.0.1:9/notes.txt"],
      });
      await expect(sent).rejects.toThrow(/notes\.txt is text \(text\/plain\) behind a URL/);
      expect(model.requests.length).toBe(before);
      const next = await session.send(`[[reply fine ${backend}]]`, { delivery: "queue" });
      expect(await next.done()).toMatchObject({ outcome: "completed" });
      await session.close();
    });

    withData(
      "refuses a binary the model cannot take before any call, saying what it takes",
      async () => {
        const session = await bridge.createSession();
        const before = model.requests.length;
        const sent = session.send("[[reply no]]", {
          delivery: "queue",
          files: [{ data: Buffer.from([0, 1, 2, 255, 254, 0]), name: "blob.bin" }],
        });
        await expect(sent).rejects.toThrow(UsageError);
        await expect(sent).rejects.toThrow(
          /blob\.bin .*cannot be sent to the model: it takes images/,
        );
        expect(await session.transcript()).toEqual([]);
        expect(model.requests.length).toBe(before);
        await session.close();
      },
    );

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
