import { describe, expect, it } from "vitest";
import { UnknownModelError } from "../../errors.js";
import type { ModelRef } from "../../events/canonical.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { createApiSession } from "./create-api-session.js";
import type { ServeRunner } from "./launch.js";
import { ModelReadiness } from "./model-readiness.js";

const DEMO: ModelRef = { providerID: "demo", modelID: "demo-1" };

/** A runner whose client records what it is asked, and a catalog wait the test ends. */
function fixture() {
  const calls: string[] = [];
  let endWait: (error?: Error) => void = () => {};
  const client = {
    v2: {
      session: {
        create: async () => {
          calls.push("create");
          return { id: "ses_1" };
        },
      },
    },
    session: {
      delete: async ({ sessionID }: { sessionID: string }) => {
        calls.push(`delete ${sessionID}`);
        return true;
      },
    },
  } as unknown as OpencodeClient;
  const readiness = new ModelReadiness(1_000, () => {
    calls.push("catalog wait");
    return new Promise<void>((resolve, reject) => {
      endWait = (error) => (error === undefined ? resolve() : reject(error));
    });
  });
  const runner = { kind: "serve", client } as unknown as ServeRunner;
  return { runner, readiness, calls, endWait: (error?: Error) => endWait(error) };
}

describe("createApiSession", () => {
  it("creates the session while the catalog loads, and returns once both are done", async () => {
    const { runner, readiness, calls, endWait } = fixture();
    const creating = createApiSession(runner, readiness, { directory: "/w", model: DEMO });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toEqual(["create", "catalog wait"]); // created before the catalog is ready
    endWait();
    await expect(creating).resolves.toBe("ses_1");
  });

  it("deletes the session it created when the model never comes", async () => {
    const { runner, readiness, calls, endWait } = fixture();
    const creating = createApiSession(runner, readiness, { directory: "/w", model: DEMO });
    endWait(new UnknownModelError("demo/demo-1", []));
    await expect(creating).rejects.toBeInstanceOf(UnknownModelError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toContain("delete ses_1");
  });
});
