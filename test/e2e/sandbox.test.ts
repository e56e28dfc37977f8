/**
 * End to end: the sandbox, really tried. The real OpenCode runs in bubblewrap with each mode;
 * the scripted model asks for what a prompt injection would (write outside the project, read
 * `~/.ssh/id_rsa`, edit through a symlink that leaves the project, reach a listener on the
 * machine), and OpenCode's own permissions allow everything, so that the sandbox is the only
 * thing in the way. Each refusal reaches the model as the tool's error, and the turn completes.
 *
 * The home (with the planted key) and the outside directory lie outside `/tmp`, as real homes
 * do: the sandbox's `/tmp` is private, so files under it would be out of reach whatever the
 * sandbox forbids, and prove nothing.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanonicalEvent } from "../../src/events/canonical.js";
import { Bridge } from "../../src/runtime/bridge/bridge.js";
import type { Session } from "../../src/runtime/session/session.js";
import type { SandboxOptions } from "../../src/server/sandbox/sandbox-options.js";
import { demoModelServer } from "../../src/testing/demo-model-server.js";
import { trackProcess } from "../support/process-tracker.js";
import { collectTurn } from "../support/turn-events.js";

const PLANTED_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- planted-by-the-sandbox-test-5c2e";

let base: string;
let home: string;
let outside: string;
let listener: Server;
let port: number;
let connections = 0;
const savedHome = process.env.HOME;

beforeAll(async () => {
  base = mkdtempSync(join(homedir(), ".ocb-sandbox-test-"));
  home = join(base, "home");
  outside = join(base, "outside");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), `${PLANTED_KEY}\n`, { mode: 0o600 });
  mkdirSync(outside);
  writeFileSync(join(outside, "target.txt"), "original\n");
  process.env.HOME = home;
  listener = createServer((socket) => {
    connections++;
    socket.end("hello from the host\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as { port: number }).port;
});

afterAll(async () => {
  process.env.HOME = savedHome;
  await new Promise((resolve) => listener?.close(resolve));
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

const MODES: { name: string; sandbox: SandboxOptions; writesInside: boolean; network: boolean }[] =
  [
    {
      name: "workspace-write",
      sandbox: { mode: "workspace-write" },
      writesInside: true,
      network: true,
    },
    {
      name: "workspace-write, network off",
      sandbox: { mode: "workspace-write", network: "off" },
      writesInside: true,
      network: false,
    },
    { name: "read-only", sandbox: { mode: "read-only" }, writesInside: false, network: true },
  ];

/** A tool call's outcome as the model sees it: its output, or its error. */
async function toolCall(
  session: Session,
  tool: string,
  input: unknown,
): Promise<{ ok: boolean; text: string; events: CanonicalEvent[] }> {
  const turn = await session.send(`[[tool ${tool} ${JSON.stringify(input)}]] [[then done]]`, {
    delivery: "queue",
  });
  const events = await collectTurn(turn);
  const ended = events.find((event) => event.type === "turn.ended");
  expect(ended?.data).toMatchObject({ outcome: "completed" });
  for (const event of events) {
    if (event.type === "tool.succeeded")
      return { ok: true, text: String(event.data.output ?? ""), events };
    if (event.type === "tool.failed") return { ok: false, text: event.data.error.message, events };
  }
  throw new Error(`no tool outcome in ${events.map((event) => event.type).join(", ")}`);
}

/** A Node one-liner that connects to the test's listener and says what happened. */
function connectCommand(): string {
  const script = `require("net").connect(${port},"127.0.0.1").on("data",()=>{console.log("CONNECTED");process.exit(0)}).on("error",(e)=>{console.log("NO-CONNECTION",e.code);process.exit(1)})`;
  return `${process.execPath} -e '${script}'`;
}

for (const mode of MODES) {
  describe(`sandbox ${mode.name}`, () => {
    let bridge: Bridge;
    let session: Session;
    let directory: string;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), "ocb-sandbox-e2e-"));
      symlinkSync(join(outside, "target.txt"), join(directory, "link.txt"));
      bridge = await Bridge.start({
        directory,
        modelServer: demoModelServer,
        // OpenCode's own permissions let everything through: the sandbox alone must stop it.
        permissions: { "*": "allow", external_directory: "allow" },
        server: { sandbox: mode.sandbox },
      });
      trackProcess(bridge.server.pid, `opencode serve (sandbox ${mode.name})`);
      session = await bridge.createSession({ title: mode.name });
    });

    afterAll(async () => {
      await bridge?.close();
      if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
    });

    it("says its mode", () => {
      expect(bridge.sandbox).toBe(mode.sandbox.mode);
    });

    it("a bash command cannot write outside the directory", async () => {
      const file = join(outside, "from-bash.txt");
      const result = await toolCall(session, "bash", { command: `echo pwned > ${file}` });
      expect(result.text).toMatch(/Read-only file system/);
      expect(existsSync(file)).toBe(false);
    });

    it("a bash command cannot read the user's SSH key", async () => {
      const result = await toolCall(session, "bash", { command: "cat ~/.ssh/id_rsa" });
      expect(result.text).not.toContain("planted-by-the-sandbox-test");
      expect(result.text).toMatch(/No such file/);
      expect(JSON.stringify(await session.transcript())).not.toContain(
        "planted-by-the-sandbox-test",
      );
    });

    it("the write tool cannot write outside, nor through a symlink that leaves the directory", async () => {
      const file = join(outside, "from-write.txt");
      const direct = await toolCall(session, "write", { path: file, content: "pwned\n" });
      expect(direct.ok).toBe(false);
      expect(existsSync(file)).toBe(false);
      const through = await toolCall(session, "write", {
        path: join(directory, "link.txt"),
        content: "pwned\n",
      });
      expect(through.ok).toBe(false);
      expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original\n");
    });

    it(
      mode.writesInside
        ? "writes inside the directory"
        : "cannot write inside the directory either",
      async () => {
        const result = await toolCall(session, "bash", {
          command: "echo made > inside.txt && echo WROTE",
        });
        expect(result.text.includes("WROTE")).toBe(mode.writesInside);
        expect(existsSync(join(directory, "inside.txt"))).toBe(mode.writesInside);
      },
    );

    it(
      mode.network
        ? "a bash command reaches a listener on the host"
        : "a bash command reaches no listener on the host",
      async () => {
        const before = connections;
        const result = await toolCall(session, "bash", { command: connectCommand() });
        if (mode.network) {
          expect(result.text).toContain("CONNECTED");
          expect(connections).toBe(before + 1);
        } else {
          expect(result.text).toContain("NO-CONNECTION");
          expect(connections).toBe(before);
        }
      },
    );
  });
}

describe("sandbox workspace-write on the subprocess backend (`opencode run` per turn)", () => {
  let bridge: Bridge;
  let session: Session;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "ocb-sandbox-run-"));
    bridge = await Bridge.start({
      directory,
      backend: "subprocess",
      autoApprove: true,
      modelServer: demoModelServer,
      server: { sandbox: "workspace-write" },
    });
    session = await bridge.createSession({ title: "subprocess" });
  });

  afterAll(async () => {
    await bridge?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it("a bash command writes inside but not outside, nor reads the SSH key", async () => {
    const file = join(outside, "from-run.txt");
    const command = `echo made > inside.txt; echo pwned > ${file}; cat ~/.ssh/id_rsa`;
    const result = await toolCall(session, "bash", { command });
    expect(result.text).toMatch(/Read-only file system/);
    expect(result.text).not.toContain("planted-by-the-sandbox-test");
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(directory, "inside.txt"))).toBe(true);
  });
});
