import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeClient } from "../../src/client/index.js";
import { gitWorktree } from "../support/git-worktree.js";
import { ocbInProcess } from "../support/ocb-in-process.js";
import { useRealSidecar } from "../support/real-sidecar.js";
import { sentTurn } from "../support/sidecar-reading.js";

const worktree = gitWorktree("ocb-cli-controls-e2e-");
afterAll(() => rmSync(worktree, { recursive: true, force: true }));
const real = useRealSidecar({ web: false, label: "cli session controls e2e", directory: worktree });
let client: BridgeClient;
/** What a user's shell would hold; no connection file is read. */
let env: Record<string, string>;
beforeAll(() => {
  client = real.current.client;
  env = { OCB_URL: real.current.sidecar.url, OCB_TOKEN: real.current.token };
});

const ocb = (...args: string[]) => ocbInProcess(args, env);

/** A prompt that has the model write `content` to `name` in the worktree. */
function write(name: string, content: string): string {
  return `[[tool write ${JSON.stringify({ path: join(worktree, name), content })}]]`;
}

function fileAt(name: string): string | undefined {
  const path = join(worktree, name);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

describe("a session's controls from the command line", () => {
  it("changes shows a turn's file and diff; undo puts the file back, redo brings it again; fork prints a session the sidecar lists", async () => {
    const session = await client.createSession();
    const first = await sentTurn(client, session.id, `${write("a.txt", "one\n")} [[reply one]]`);
    const second = await sentTurn(client, session.id, `${write("a.txt", "two\n")} [[reply two]]`, {
      after: first.end.seq ?? 0,
    });
    expect(fileAt("a.txt")).toBe("two\n");

    // The ids the controls take, as `ocb inputs` lists them.
    const inputs = await ocb("inputs", session.id, "--json");
    expect(inputs).toMatchObject({ code: 0, stderr: "" });
    expect(
      inputs.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { inputId: first.inputId, turnId: first.turnId, text: expect.stringContaining("a.txt") },
      { inputId: second.inputId, turnId: second.turnId, text: expect.stringContaining("a.txt") },
    ]);

    // The second turn's change: its line, then its diff.
    const changes = await ocb("changes", session.id, "--turn", second.turnId);
    expect(changes).toMatchObject({ code: 0, stderr: "" });
    const [line, ...diff] = changes.stdout.split("\n");
    expect(line).toBe("modified +1 -1 a.txt");
    expect(diff).toEqual(expect.arrayContaining(["-one", "+two"]));
    const stat = await ocb("changes", session.id, "--stat");
    expect(stat.stdout).toBe("added    +1 -0 a.txt\n");

    // Undo the second input: the file as the first turn left it; redo: as the second did.
    const undo = await ocb("undo", session.id, second.inputId);
    expect(undo).toMatchObject({ code: 0, stderr: "" });
    expect(undo.stdout).toContain(`undone: ${session.id} is back to before ${second.inputId}`);
    expect(fileAt("a.txt")).toBe("one\n");
    const undone = await ocb("inputs", session.id);
    expect(undone.stdout).toMatch(
      new RegExp(`^${second.inputId} +${second.turnId} +\\(undone\\) `, "m"),
    );
    const redo = await ocb("redo", session.id);
    expect(redo).toMatchObject({ code: 0, stderr: "" });
    expect(fileAt("a.txt")).toBe("two\n");
    // Nothing left to redo: the sidecar's refusal, in one line.
    const again = await ocb("redo", session.id);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^ocb: .*\(conflict, 409\)\n$/);

    // A fork before the second input: its id alone on stdout, a session the sidecar lists.
    const fork = await ocb("fork", session.id, second.inputId);
    expect(fork).toMatchObject({ code: 0, stderr: "" });
    const forkId = fork.stdout.trim();
    expect(forkId).toMatch(/^\S+$/);
    expect(forkId).not.toBe(session.id);
    expect((await client.listSessions()).map((listed) => listed.id)).toContain(forkId);
    const forkInputs = await ocb("inputs", forkId, "--json");
    expect(forkInputs.stdout.trim().split("\n")).toHaveLength(1);

    // Compacted, the fork goes on from a summary.
    const compact = await ocb("compact", forkId);
    expect(compact).toMatchObject({ code: 0, stderr: "" });
    expect(compact.stdout).toBe(`compacted: ${forkId} goes on from a summary of its history\n`);
  });

  it("continue, and an unknown session or OpenCode session, end in the sidecar's refusal", async () => {
    const session = await client.createSession();
    // Its OpenCode session is still there: nothing to continue.
    const cont = await ocb("continue", session.id);
    expect(cont).toMatchObject({ code: 1, stdout: "" });
    expect(cont.stderr).toMatch(/^ocb: .*\(conflict, 409\)\n$/);
    const unknown = await ocb("changes", "ses_nosuchsession");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toMatch(/^ocb: .*\(not_found, 404\)\n$/);

    // The sidecar's own sessions are not the user's to import: none to list here.
    const listed = await ocb("opencode-sessions", "--json");
    expect(listed).toEqual({ code: 0, stdout: "", stderr: "" });
    const missing = await ocb("opencode-import", "ses_nosuchsession");
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toMatch(/^ocb: .*\(not_found, 404\)\n$/);
  });
});
