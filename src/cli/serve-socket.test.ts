import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors.js";
import { socketDirectoryToHide, socketOf } from "./serve-socket.js";

describe("ocb serve --socket", () => {
  it("is the socket's absolute path, or nothing without the flag", () => {
    expect(socketOf({ host: "127.0.0.1" })).toBeUndefined();
    expect(socketOf({ host: "127.0.0.1", socket: "run/ocb.sock" })).toBe(resolve("run/ocb.sock"));
  });

  it("with no path, is sidecar.sock in the connection file's directory, made 0700", () => {
    const data = mkdtempSync(join(tmpdir(), "ocb-serve-socket-"));
    try {
      const path = socketOf({ host: "127.0.0.1", socket: true }, { XDG_DATA_HOME: data });
      expect(path).toBe(join(data, "opencode-bridge", "serve", "sidecar.sock"));
      expect(statSync(join(data, "opencode-bridge", "serve")).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it("refuses what names a TCP address with it, naming each flag", () => {
    const refused = () =>
      socketOf({
        host: "0.0.0.0",
        port: "4097",
        socket: "ocb.sock",
        tlsCert: "c.pem",
        cluster: true,
      });
    expect(refused).toThrow(UsageError);
    expect(refused).toThrow("drop --port, --host, --tls-cert, --cluster");
    expect(() => socketOf({ host: "127.0.0.1", socket: "" })).toThrow("--socket needs a path");
  });

  it("with a sandbox, hides an explicit socket's directory, and refuses one that holds a project", () => {
    expect(socketDirectoryToHide("/run/user/1000/ocb.sock", false, ["/p"])).toBeUndefined();
    expect(socketDirectoryToHide(undefined, true, ["/p"])).toBeUndefined();
    expect(socketDirectoryToHide("/run/user/1000/ocb.sock", true, ["/p"])).toBe("/run/user/1000");
    expect(socketDirectoryToHide("/p/sockets/ocb.sock", true, ["/p"])).toBe("/p/sockets");
    expect(() => socketDirectoryToHide("/p/ocb.sock", true, ["/q", "/p"])).toThrow(
      "with --sandbox, the socket's directory /p must not hold a project directory (/p)",
    );
    expect(() => socketDirectoryToHide("/home/u/ocb.sock", true, ["/home/u/project"])).toThrow(
      UsageError,
    );
  });
});
