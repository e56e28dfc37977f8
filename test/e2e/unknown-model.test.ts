/**
 * End to end: a model the server's catalog does not list is refused as soon as the catalog has
 * loaded, with the closest names it has, not after the model-ready bound (real 1.18.33 binary,
 * scripted model). The bound is set far beyond the test's own limit: only the fast refusal
 * can pass.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UnknownModelError, UsageError } from "../../src/errors.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";

/** Far beyond the tests' own limits: a refusal that waited for it fails them. */
const MODEL_READY_BOUND_MS = 600_000;
/** A generous safety net, not the thing tested. */
const TEST_LIMIT_MS = 60_000;

let bridge: Bridge;
let directory: string;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), "ocb-unknown-model-"));
  bridge = await Bridge.start({
    directory,
    modelServer: demoModelServer,
    store: ":memory:",
    modelReadyTimeoutMs: MODEL_READY_BOUND_MS,
  });
  trackProcess(bridge.server.pid, "opencode serve (unknown-model e2e)");
});
afterAll(async () => {
  await bridge?.close();
  rmSync(directory, { recursive: true, force: true });
});

async function refusal(model: { providerID: string; modelID: string }): Promise<unknown> {
  try {
    await bridge.createSession({ model });
  } catch (error) {
    return error;
  }
  throw new Error(`${model.providerID}/${model.modelID} was not refused`);
}

describe("a model the catalog does not list", () => {
  it(
    "is refused once the catalog has loaded, naming the closest models (a typo in the model)",
    async () => {
      const error = await refusal({ providerID: "demo", modelID: "demo-l" });
      expect(error).toBeInstanceOf(UnknownModelError);
      expect(error).toBeInstanceOf(UsageError);
      const refused = error as UnknownModelError;
      expect(refused.model).toBe("demo/demo-l");
      expect(refused.candidates[0]).toBe("demo/demo-1");
      expect(refused.candidates.length).toBeLessThanOrEqual(5);
      expect(refused.message).toMatch(
        /^model demo\/demo-l is not in the server's model catalog; closest: demo\/demo-1/,
      );
    },
    TEST_LIMIT_MS,
  );

  it(
    "is refused for a provider the server does not have, naming that provider's look-alike",
    async () => {
      const error = await refusal({ providerID: "demoo", modelID: "demo-2" });
      expect(error).toBeInstanceOf(UnknownModelError);
      expect((error as UnknownModelError).candidates[0]).toBe("demo/demo-2");
    },
    TEST_LIMIT_MS,
  );

  it(
    "does not stand in the way of a model the catalog lists",
    async () => {
      const session = await bridge.createSession({
        model: { providerID: "demo", modelID: "demo-2" },
      });
      await session.close();
    },
    TEST_LIMIT_MS,
  );
});
