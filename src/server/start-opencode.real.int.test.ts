/**
 * startOpencode with the real `opencode` binary from npm: readiness, auth, config,
 * isolation, shutdown of the whole group, and an exit nobody asked for.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isRunning, trackProcess } from "../../test/support/process-tracker.js";
import { recordingLogger } from "../../test/support/recording-logger.js";
import { ServerStartError } from "../errors.js";
import { attachOpencode } from "./attach-opencode.js";
import { findFreePort } from "./free-port.js";
import { basicAuthHeader } from "./health.js";
import type { OpencodeServerHandle } from "./server-handle.js";
import { launchOpencode, type StartOpencodeOptions, startOpencode } from "./start-opencode.js";

let directory: string;
const handles: OpencodeServerHandle[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "ocb-real-start-test-"));
});

afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.close()));
  rmSync(directory, { recursive: true, force: true });
});

async function start(options: StartOpencodeOptions = {}): Promise<OpencodeServerHandle> {
  const handle = await startOpencode({ directory, ...options });
  handles.push(handle);
  trackProcess(handle.pid, "opencode serve (start-opencode.real.int.test)");
  return handle;
}

/** The server's environment, read from /proc (Linux only; elsewhere undefined). */
function environOf(pid: number): Map<string, string> | undefined {
  try {
    const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    return new Map(
      entries.filter(Boolean).map((entry) => {
        const at = entry.indexOf("=");
        return [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  } catch {
    return undefined;
  }
}

function expectGone(pid: number): void {
  let code: unknown;
  try {
    process.kill(pid, 0);
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code;
  }
  expect(code).toBe("ESRCH");
}

describe("startOpencode with the real binary", () => {
  it("starts, answers with auth only, carries the config, and close() removes everything", async () => {
    const logger = recordingLogger();
    const { entries } = logger;
    const handle = await start({ config: { username: "ocb-launcher-test" }, logger });
    const { url, pid, password } = handle;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(pid).toBeTypeOf("number");
    expect(password).toBeTypeOf("string");
    expect(handle.version).toBe("1.18.33");
    if (pid === undefined || password === undefined) return;

    const auth = { authorization: basicAuthHeader("opencode", password) };
    const health = await fetch(`${url}/global/health`, { headers: auth });
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ healthy: true, version: "1.18.33" });
    const anonymous = await fetch(`${url}/global/health`);
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();

    const config = await fetch(`${url}/config`, { headers: auth });
    expect(await config.json()).toMatchObject({
      username: "ocb-launcher-test",
      autoupdate: false,
      share: "disabled",
    });

    // Isolated roots in a temp dir; the password given in the environment, never in argv (and
    // starred out of the environment block once the bridge's plugin ran: hide-secrets-plugin.ts).
    const environ = environOf(pid);
    const dataDir = environ?.get("XDG_DATA_HOME");
    if (environ !== undefined) {
      expect(dataDir).toContain(join(tmpdir(), "ocb-opencode-"));
      expect([password, "*".repeat(password.length)]).toContain(
        environ.get("OPENCODE_SERVER_PASSWORD"),
      );
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8")).not.toContain(password);
    }

    // Attaching to it works with the password and is refused without.
    const attached = await attachOpencode(url, { password });
    expect(attached.version).toBe("1.18.33");
    await expect(attachOpencode(url)).rejects.toMatchObject({ status: 401 });

    const tail = handle.logTail();
    expect(tail).toContain(`opencode server listening on ${url}`);
    expect(JSON.stringify([tail, entries])).not.toContain(password);

    await Promise.all([handle.close(), handle.close()]);
    expectGone(pid);
    if (dataDir !== undefined) expect(existsSync(dirname(dataDir))).toBe(false);
    await expect(handle.exited).resolves.toMatchObject({ expected: true });
    expect(entries.filter((entry) => entry.level === "error")).toEqual([]);
  });

  it("reports an exit nobody asked for through `exited` and the logger", async () => {
    const logger = recordingLogger();
    const { entries } = logger;
    const handle = await start({ logger });
    const pid = handle.pid ?? 0;
    const dataDir = environOf(pid)?.get("XDG_DATA_HOME");
    process.kill(-pid, "SIGKILL");
    const exit = await handle.exited;
    expect(exit).toMatchObject({ code: null, signal: "SIGKILL", expected: false });
    expect(exit.logTail.length).toBeGreaterThan(0);
    expect(
      entries.some((entry) => entry.level === "error" && /unexpectedly/.test(entry.message)),
    ).toBe(true);
    // close() after the crash still cleans up.
    await handle.close();
    expectGone(pid);
    if (dataDir !== undefined) expect(existsSync(dirname(dataDir))).toBe(false);
  });

  it("retries once on a fresh port when the picked one was taken in the meantime", async () => {
    const taken = await holdPort();
    const logger = recordingLogger();
    const { entries } = logger;
    const ports = [taken.port];
    try {
      const handle = await launchOpencode(
        { directory, logger },
        { findFreePort: async (hostname) => ports.shift() ?? findFreePort(hostname) },
      );
      handles.push(handle);
      trackProcess(handle.pid, "opencode serve (port retry test)");
      expect(handle.url).not.toContain(`:${taken.port}`);
      expect(entries.some((entry) => /port was taken/.test(entry.message))).toBe(true);
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
  });

  it("says which port is in use when an explicit port is taken", async () => {
    const taken = await holdPort();
    try {
      const error = await start({ port: taken.port }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServerStartError);
      expect((error as ServerStartError).message).toContain(
        `port ${taken.port} is already in use; pass a free \`port\``,
      );
      // What OpenCode itself says about it, ANSI colours removed.
      expect((error as ServerStartError).logTail).toContain("Error: Unexpected error");
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
  });

  it("stops the server when the parent process exits without close()", async () => {
    // A separate Node process starts a server and exits at once; the 'exit' hook must
    // take the server's group down with it instead of leaving an orphan behind.
    const entry = join(import.meta.dirname, "index.ts");
    const script = [
      'import { readFileSync } from "node:fs";',
      `import { startOpencode } from ${JSON.stringify(entry)};`,
      `const handle = await startOpencode({ directory: ${JSON.stringify(directory)} });`,
      'const environ = readFileSync("/proc/" + handle.pid + "/environ", "utf8");',
      'const data = /XDG_DATA_HOME=([^\\0]*)/.exec(environ)?.[1] ?? "";',
      'process.stdout.write(handle.pid + " " + data + "\\n");',
      "process.exit(0);",
    ].join("\n");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise((resolve) => child.once("exit", resolve));
    const [pidText = "", dataDir = ""] = output.trim().split(" ");
    const pid = Number(pidText);
    expect(pid).toBeGreaterThan(0);
    trackProcess(pid, "opencode serve (orphan test)");
    expect(dataDir).toContain("ocb-opencode-");
    const root = dirname(dataDir);
    try {
      for (let i = 0; i < 100 && isRunning(pid); i++) await delay(50);
      expect(isRunning(pid)).toBe(false);
      // The hook cannot wait for the server to end; its keeper, which outlives the parent,
      // removes the temp root once the group is gone.
      for (let i = 0; i < 100 && existsSync(root); i++) await delay(50);
      expect(existsSync(root)).toBe(false);
    } finally {
      if (isRunning(pid)) process.kill(-pid, "SIGKILL");
      rmSync(root, { recursive: true, force: true });
    }
  });
});

async function holdPort(): Promise<{ server: Server; port: number }> {
  const port = await findFreePort("127.0.0.1");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { server, port };
}
