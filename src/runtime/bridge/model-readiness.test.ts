import { describe, expect, it } from "vitest";
import type { ModelRef } from "../../events/canonical.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { ModelReadiness } from "./model-readiness.js";

const CLIENT = {} as OpencodeClient;
const DEMO: ModelRef = { providerID: "demo", modelID: "demo-1" };
const OTHER: ModelRef = { providerID: "demo", modelID: "demo-2" };

/** A readiness whose catalog waits are counted (and fail while `failing` is set). */
function counted() {
  const waits: string[] = [];
  const state = { failing: false };
  const readiness = new ModelReadiness(1_000, async (_client, directory, model) => {
    waits.push(`${directory} ${model.modelID}`);
    if (state.failing) throw new Error("catalog unavailable");
  });
  return { readiness, waits, state };
}

describe("ModelReadiness", () => {
  it("waits once per location and model", async () => {
    const { readiness, waits } = counted();
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    await readiness.ensure(CLIENT, "/b", DEMO, undefined);
    await readiness.ensure(CLIENT, "/a", OTHER, undefined);
    expect(waits).toEqual(["/a demo-1", "/b demo-1", "/a demo-2"]);
  });

  it("waits again for a forgotten model only, and for every model after clear", async () => {
    const { readiness, waits } = counted();
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    await readiness.ensure(CLIENT, "/a", OTHER, undefined);
    readiness.forget("/a", DEMO);
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    await readiness.ensure(CLIENT, "/a", OTHER, undefined);
    expect(waits).toEqual(["/a demo-1", "/a demo-2", "/a demo-1"]);
    readiness.clear();
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    await readiness.ensure(CLIENT, "/a", OTHER, undefined);
    expect(waits.slice(3)).toEqual(["/a demo-1", "/a demo-2"]);
  });

  it("does not remember a wait that failed", async () => {
    const { readiness, waits, state } = counted();
    state.failing = true;
    await expect(readiness.ensure(CLIENT, "/a", DEMO, undefined)).rejects.toThrow(
      "catalog unavailable",
    );
    state.failing = false;
    await readiness.ensure(CLIENT, "/a", DEMO, undefined);
    expect(waits).toEqual(["/a demo-1", "/a demo-1"]);
  });
});
