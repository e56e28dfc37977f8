/** What `npm start` does before ocb serve: build the web chat when it is stale, and pick the arguments. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { serveArguments } from "../scripts/serve-arguments.js";
import { webBuildReason } from "../scripts/web-build-state.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), "ocb-web-build-"));
  dirs.push(root);
  mkdirSync(join(root, "web", "src", "parts"), { recursive: true });
  writeFileSync(join(root, "web", "src", "parts", "a.tsx"), "");
  return root;
}

function touch(path: string, secondsAgo: number): void {
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path, at, at);
}

function build(root: string): string {
  mkdirSync(join(root, "dist", "web"), { recursive: true });
  const index = join(root, "dist", "web", "index.html");
  writeFileSync(index, "");
  return index;
}

describe("whether npm start builds the web chat first", () => {
  it("builds when dist/web is missing", () => {
    expect(webBuildReason(checkout())).toBe("dist/web is not built yet");
  });

  it("builds when a file under web/, however deep, is newer than the build", () => {
    const root = checkout();
    touch(build(root), 60);
    expect(webBuildReason(root)).toBe("web/src/parts/a.tsx changed since dist/web was built");
  });

  it("does not when the build is newer than every file under web/", () => {
    const root = checkout();
    touch(join(root, "web", "src", "parts", "a.tsx"), 60);
    build(root);
    expect(webBuildReason(root)).toBeUndefined();
  });
});

describe("what npm start runs", () => {
  it("ocb serve --demo, with the user's arguments after it", () => {
    expect(serveArguments([])).toEqual({ args: ["serve", "--demo"], demo: true });
    expect(serveArguments(["--port", "8080"]).args).toEqual(["serve", "--demo", "--port", "8080"]);
    expect(serveArguments(["--demo"]).args).toEqual(["serve", "--demo"]);
  });

  it("no --demo when a real model or config is named", () => {
    expect(serveArguments(["--model", "p/m"])).toEqual({
      args: ["serve", "--model", "p/m"],
      demo: false,
    });
    expect(serveArguments(["--model=p/m"]).demo).toBe(false);
    expect(serveArguments(["--config", "opencode.json"]).demo).toBe(false);
    expect(serveArguments(["--models-are-not-a-flag"]).demo).toBe(true);
  });
});
