import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  announceServe,
  ConnectionFileError,
  madeServeConnectionDirectory,
  readServeConnection,
  removeServeConnection,
  serveConnectionPath,
  writeServeConnection,
} from "./serve-connection-file.js";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-serve-file-"));
  path = join(dir, "data", "opencode-bridge", "serve", "connection.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CONNECTION = {
  url: "http://127.0.0.1:4097",
  token: "a-token-of-forty-characters-0123456789ab",
  pid: 4242,
  startedAt: 1_764_000_000_000,
};

describe("the connection file of ocb serve", () => {
  it("is serve/connection.json in the bridge's data directory", () => {
    expect(serveConnectionPath({ XDG_DATA_HOME: "/x/data" })).toBe(
      "/x/data/opencode-bridge/serve/connection.json",
    );
  });

  it("has a directory of its own, made on demand, for a sandbox to hide", () => {
    const env = { XDG_DATA_HOME: join(dir, "xdg") };
    const made = madeServeConnectionDirectory(env);
    expect(made).toBe(join(dir, "xdg", "opencode-bridge", "serve"));
    expect(statSync(made).isDirectory()).toBe(true);
    expect(madeServeConnectionDirectory(env)).toBe(made); // there already: fine
  });

  it("is written readable by the user alone, its directory created, and read back", () => {
    writeServeConnection(path, CONNECTION);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readServeConnection(path)).toEqual(CONNECTION);
    // Written again over the first: still 0600, no temporary file left.
    writeServeConnection(path, { ...CONNECTION, pid: 4343 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readServeConnection(path)?.pid).toBe(4343);
    expect(readFileSync(path, "utf8")).toMatch(/^\{.*\}\n$/);
  });

  it("reads as none when there is no file", () => {
    expect(readServeConnection(path)).toBeUndefined();
  });

  it("names the file and what to do when it is not one", () => {
    writeServeConnection(path, CONNECTION);
    writeFileSync(path, "{ cut sho");
    expect(() => readServeConnection(path)).toThrow(ConnectionFileError);
    expect(() => readServeConnection(path)).toThrow(
      `${path} is not a connection file of \`ocb serve\` (not JSON); remove it and start \`ocb serve\` again`,
    );
    writeFileSync(path, JSON.stringify({ url: "http://127.0.0.1:1", pid: "12" }));
    expect(() => readServeConnection(path)).toThrow(/\(bad token, pid, startedAt\)/);
  });

  it("is removed only by the process it names: a serve started since owns it", () => {
    writeServeConnection(path, CONNECTION);
    removeServeConnection(path, 1);
    expect(readServeConnection(path)).toEqual(CONNECTION);
    removeServeConnection(path, CONNECTION.pid);
    expect(readServeConnection(path)).toBeUndefined();
    removeServeConnection(path, CONNECTION.pid); // gone already: nothing to do
  });

  it("is announced for this process and removed on dispose, or at its exit", () => {
    const before = process.listenerCount("exit");
    const announced = announceServe({ url: CONNECTION.url, token: CONNECTION.token }, path);
    expect(readServeConnection(path)).toMatchObject({ url: CONNECTION.url, pid: process.pid });
    expect(process.listenerCount("exit")).toBe(before + 1);
    // What the exit handler does when the process ends before dispose (a second Ctrl-C).
    const onExit = process.listeners("exit").at(-1) as () => void;
    onExit();
    expect(readServeConnection(path)).toBeUndefined();
    announced.dispose();
    expect(process.listenerCount("exit")).toBe(before);

    const again = announceServe({ url: CONNECTION.url, token: CONNECTION.token }, path);
    again.dispose();
    expect(readServeConnection(path)).toBeUndefined();
    expect(process.listenerCount("exit")).toBe(before);
  });
});
