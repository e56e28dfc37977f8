import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { ConnectionFileError, writeServeConnection } from "./serve-connection-file.js";
import { NoSidecarError, sidecarTarget } from "./sidecar-target.js";

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ocb-sidecar-target-"));
  path = join(dir, "connection.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = "a-token-of-forty-characters-0123456789ab";
const running = () => true;
const gone = () => false;

function announced(pid = 4242): void {
  writeServeConnection(path, {
    url: "http://127.0.0.1:4097",
    token: "file-token",
    pid,
    startedAt: 0,
  });
}

describe("which sidecar a command drives", () => {
  it("--url first, with the token from OCB_TOKEN, whatever the file says", () => {
    announced();
    const env = { OCB_URL: "http://127.0.0.1:1", OCB_TOKEN: TOKEN };
    expect(sidecarTarget("http://127.0.0.1:2", env, { path, isRunning: running })).toEqual({
      url: "http://127.0.0.1:2",
      token: TOKEN,
    });
  });

  it("then OCB_URL, with OCB_TOKEN", () => {
    announced();
    const env = { OCB_URL: "http://127.0.0.1:1", OCB_TOKEN: TOKEN };
    expect(sidecarTarget(undefined, env, { path, isRunning: running })).toEqual({
      url: "http://127.0.0.1:1",
      token: TOKEN,
    });
  });

  it("refuses a URL without OCB_TOKEN, and says where the token goes", () => {
    expect(() => sidecarTarget("http://127.0.0.1:2", {}, { path })).toThrow(UsageError);
    expect(() => sidecarTarget("http://127.0.0.1:2", { OCB_TOKEN: "" }, { path })).toThrow(
      "--url needs the sidecar's token in OCB_TOKEN (never on the command line, where `ps` shows it)",
    );
    expect(() => sidecarTarget(undefined, { OCB_URL: "http://127.0.0.1:1" }, { path })).toThrow(
      /^OCB_URL needs the sidecar's token in OCB_TOKEN/,
    );
  });

  it("refuses a URL that is not http(s), naming where it came from", () => {
    expect(() => sidecarTarget("127.0.0.1:4097", { OCB_TOKEN: TOKEN }, { path })).toThrow(
      '--url must be the sidecar\'s http(s) URL, as `ocb serve` prints it (http://127.0.0.1:PORT); got "127.0.0.1:4097"',
    );
    expect(() =>
      sidecarTarget(undefined, { OCB_URL: "ws://h", OCB_TOKEN: TOKEN }, { path }),
    ).toThrow(UsageError);
  });

  it("else the running ocb serve's connection file, its URL and token both", () => {
    announced(77);
    expect(sidecarTarget(undefined, { OCB_TOKEN: TOKEN }, { path, isRunning: running })).toEqual({
      url: "http://127.0.0.1:4097",
      token: "file-token",
      file: { path, pid: 77 },
    });
  });

  it("and the socket of an ocb serve --socket, with the base URL its client calls", () => {
    writeServeConnection(path, {
      url: "unix:/run/user/1000/ocb.sock",
      token: "file-token",
      pid: 78,
      startedAt: 0,
      socketPath: "/run/user/1000/ocb.sock",
    });
    expect(sidecarTarget(undefined, {}, { path, isRunning: running })).toEqual({
      url: "http://localhost",
      token: "file-token",
      socketPath: "/run/user/1000/ocb.sock",
      file: { path, pid: 78 },
    });
  });

  it("with no file, says to start ocb serve or pass --url with OCB_TOKEN", () => {
    const find = () => sidecarTarget(undefined, {}, { path });
    expect(find).toThrow(NoSidecarError);
    expect(find).toThrow(
      `no running \`ocb serve\` found (no ${path}): start \`ocb serve\`, or pass --url (or set OCB_URL) with the sidecar's token in OCB_TOKEN`,
    );
  });

  it("finds a file left by a serve that is gone (killed outright) stale, and says so", () => {
    announced(4242);
    const find = () => sidecarTarget(undefined, {}, { path, isRunning: gone });
    expect(find).toThrow(NoSidecarError);
    expect(find).toThrow(
      new RegExp(
        `^the \`ocb serve\` that ${path} names \\(pid 4242, http://127.0.0.1:4097, started 1970-01-01T00:00:00.000Z\\) is no longer running: start \`ocb serve\``,
      ),
    );
  });

  it("asks the process table by default: this process runs", () => {
    announced(process.pid);
    expect(sidecarTarget(undefined, {}, { path }).file?.pid).toBe(process.pid);
  });

  it("reports a connection file it cannot read, naming it", () => {
    mkdirSync(path);
    const find = () => sidecarTarget(undefined, {}, { path, isRunning: running });
    expect(find).toThrow(ConnectionFileError);
    expect(find).toThrow(`cannot read ${path}`);
  });
});
