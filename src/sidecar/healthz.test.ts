/**
 * `/healthz` takes no token, and its answer asks OpenCode whether it is up: without a bound a
 * flood of checks was a flood of calls to OpenCode. Its answer is reused for
 * `limits.healthCacheMs` (the reuse itself, with a clock, in recent-answer.test.ts). The
 * stand-in bridge is made a `serve` one whose health call is counted (no OpenCode here).
 */
import { afterEach, expect, it } from "vitest";
import { type SidecarHarness, sidecarHarness } from "../../test/support/sidecar-harness.js";

let harness: SidecarHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A harness whose bridge's health call answers `healthy` and counts its calls. */
function countedHealth(healthy: boolean): { harness: SidecarHarness; calls: () => number } {
  const made = sidecarHarness({ limits: { healthCacheMs: 60_000 } });
  let calls = 0;
  Object.assign(made.ctx.bridge, {
    backend: "serve",
    client: {
      global: {
        health: async () => {
          calls++;
          return { healthy, version: "1.18.33" };
        },
      },
    },
  });
  return { harness: made, calls: () => calls };
}

it("a flood of health checks asks OpenCode once, together or one after another", async () => {
  const counted = countedHealth(true);
  harness = counted.harness;
  const app = harness.app;
  const together = await Promise.all(
    Array.from({ length: 30 }, () => app.inject({ url: "/healthz" })),
  );
  for (let check = 0; check < 10; check++) together.push(await app.inject({ url: "/healthz" }));
  expect(together.map((answer) => answer.statusCode)).toEqual(Array(40).fill(200));
  expect(together[39]?.json()).toEqual({ ok: true, opencode: "up" });
  expect(counted.calls()).toBe(1);
});

it("a down answer is reused the same way, as 503", async () => {
  const counted = countedHealth(false);
  harness = counted.harness;
  const answers = await Promise.all(
    Array.from({ length: 5 }, () => counted.harness.app.inject({ url: "/healthz" })),
  );
  expect(answers.map((answer) => answer.statusCode)).toEqual(Array(5).fill(503));
  expect(answers[0]?.json()).toEqual({ ok: false, opencode: "down" });
  expect(counted.calls()).toBe(1);
});
