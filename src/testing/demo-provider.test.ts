import { describe, expect, it } from "vitest";
import { demoModelRef, demoProviderConfig } from "./demo-provider.js";
import { startScriptedModel } from "./scripted-model/server.js";

describe("demoProviderConfig", () => {
  it("points the demo provider at the given URL and selects a model the server lists", async () => {
    const model = await startScriptedModel();
    try {
      const config = demoProviderConfig(model.url);
      expect(config.provider.demo.options.baseURL).toBe(model.url);
      expect(config.model).toBe("demo/demo-1");
      expect(config.model).toBe(demoModelRef);
      const listed = (await (await fetch(`${model.url}/models`)).json()) as {
        data: { id: string }[];
      };
      const [providerId, modelId] = config.model.split("/");
      expect(Object.keys(config.provider)).toEqual([providerId]);
      expect(Object.keys(config.provider.demo.models)).toEqual([modelId, "demo-2"]);
      expect(listed.data.map((entry) => entry.id)).toEqual(
        Object.keys(config.provider.demo.models),
      );
    } finally {
      await model.close();
    }
  });

  it("labels the model as scripted and declares image input", () => {
    const entry = demoProviderConfig("http://127.0.0.1:1/v1").provider.demo.models["demo-1"];
    expect(entry?.name).toMatch(/scripted/i);
    expect(entry?.name).toMatch(/not an LLM/);
    expect(entry?.modalities.input).toContain("image");
    expect(entry?.tool_call).toBe(true);
  });
});
