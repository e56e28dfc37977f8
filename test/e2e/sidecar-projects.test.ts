/**
 * End to end: many projects in one sidecar, on the real `opencode serve` 1.18.33 and the
 * scripted model. A session made in a second allowed directory runs its tools there (the
 * `bash` tool's `pwd` says so); a directory not allowed is refused before OpenCode; the
 * projects list both directories with their counts, and the sessions of one are listed alone
 * and paged; what a project offers (its commands) is listed for its directory.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, type BridgeClient } from "../../src/client/index.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { readUntil } from "../support/sidecar-reading.js";

const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "ocb-projects-e2e-")));
const second = join(elsewhere, "second-project");
const outside = join(elsewhere, "not-allowed");
mkdirSync(join(second, ".opencode", "command"), { recursive: true });
mkdirSync(outside);
// A command only the second project has.
writeFileSync(
  join(second, ".opencode", "command", "second-only.md"),
  "---\ndescription: a command of the second project\n---\nSay $ARGUMENTS\n",
);
const real = useRealSidecar({
  web: false,
  label: "sidecar projects e2e",
  allowDirectories: [second],
  permissions: { "*": "allow" },
});
let client: BridgeClient;
beforeAll(() => {
  ({ client } = real.current);
});
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe("projects", () => {
  it("a session in a second allowed directory runs its tools there", async () => {
    const session = await client.createSession({ directory: second, title: "second" });
    expect(session.directory).toBe(second);
    const { turnId } = await client.send(session.id, {
      text: '[[tool bash {"command":"pwd","description":"where"}]]',
      delivery: "queue",
    });
    const events = await readUntil(
      client,
      session.id,
      (event) => event.type === "turn.ended" && event.turnId === turnId,
      { what: "the end of the pwd turn" },
    );
    const tool = events.find((event) => event.type === "tool.succeeded");
    expect(JSON.stringify(tool?.data)).toContain(second);
  });

  it("a directory not allowed is refused before OpenCode, naming the allowed ones", async () => {
    const refused = await client.createSession({ directory: outside }).catch((error) => error);
    expect(refused).toBeInstanceOf(BridgeApiError);
    expect(refused).toMatchObject({ status: 403, code: "forbidden" });
    expect((refused as Error).message).toContain(second);
  });

  it("the projects list both directories; a project's sessions are listed alone and paged", async () => {
    await client.createSession({ title: "default one" });
    await client.createSession({ title: "default two" });
    const projects = await client.projects();
    const byDirectory = new Map(projects.map((project) => [project.directory, project]));
    expect(byDirectory.get(real.current.directory)).toMatchObject({ default: true, sessions: 2 });
    expect(byDirectory.get(second)).toMatchObject({ default: false, allowed: true, sessions: 1 });

    const first = await client.sessionPage({ directory: real.current.directory, limit: 1 });
    expect(first.sessions).toHaveLength(1);
    expect(first.nextCursor).toBeDefined();
    const next = await client.sessionPage({
      directory: real.current.directory,
      limit: 1,
      ...(first.nextCursor === undefined ? {} : { cursor: first.nextCursor }),
    });
    expect(next.nextCursor).toBeUndefined();
    expect([...first.sessions, ...next.sessions].map((session) => session.title)).toEqual([
      "default one",
      "default two",
    ]);
  });

  it("what a project offers is listed for its directory: its own commands; a directory not allowed is refused", async () => {
    const names = async (directory?: string) =>
      (await client.commands(directory === undefined ? {} : { directory })).map((c) => c.name);
    expect(await names(second)).toContain("second-only");
    expect(await names()).not.toContain("second-only");
    expect((await client.agents({ directory: second })).map((a) => a.name)).toContain("build");
    const refused = await client.skills({ directory: outside }).catch((error) => error);
    expect(refused).toMatchObject({ status: 403, code: "forbidden" });
  });
});
