/**
 * The README is the page a user reads first: short (design notes, benchmarks and history live
 * in docs/, CHANGELOG.md and CONTRIBUTING.md), and opening with the two commands a newcomer
 * runs on a fresh machine.
 */
import { readFileSync, statSync } from "node:fs";
import { expect, it } from "vitest";

const README = new URL("../README.md", import.meta.url);

it("is at most 20 KB", () => {
  expect(statSync(README).size).toBeLessThanOrEqual(20 * 1024);
});

it("opens with `npm ci && npm start` and `npm test`", () => {
  const text = readFileSync(README, "utf8");
  const firstBlock = /^```sh\n([\s\S]*?)^```/m.exec(text)?.[1] ?? "";
  expect(text.indexOf("```sh")).toBeLessThan(text.indexOf("\n## "));
  expect(firstBlock.split("\n").map((line) => line.split("#")[0]?.trim())).toEqual([
    "npm ci && npm start",
    "npm test",
    "",
  ]);
});
