import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeApiError, BridgeClient, liveConversationOf } from "../../src/client/index.js";
import type { CanonicalEvent, Usage } from "../../src/events/canonical.js";
import { addUsage, tokensInContext } from "../../src/events/usage-tally.js";
import { gitWorktree } from "../support/git-worktree.js";
import { DEMO_MODEL, useRealSidecar } from "../support/real-sidecar.js";
import { readUntil, sentTurn } from "../support/sidecar-reading.js";
import { NodeWebSocket } from "../support/ws.js";

/** A git worktree whose one commit has `old.txt` (two lines). */
const worktree = gitWorktree("ocb-changes-e2e-", { "old.txt": "a\nb\n" });
afterAll(() => rmSync(worktree, { recursive: true, force: true }));
const real = useRealSidecar({ web: false, label: "sidecar changes e2e", directory: worktree });
let client: BridgeClient;
beforeAll(() => {
  ({ client } = real.current);
});

const TODOS = [
  { content: "Write the new file", status: "completed", priority: "high" },
  { content: "Rewrite old.txt", status: "in_progress", priority: "medium" },
];

/** A prompt that has the model write `content` to `name` in the worktree. */
function write(name: string, content: string): string {
  return `[[tool write ${JSON.stringify({ path: join(worktree, name), content })}]]`;
}

/** Sends `text`; the turn's events up to its end. */
async function turn(sessionId: string, text: string, after: number): Promise<CanonicalEvent[]> {
  return (await sentTurn(client, sessionId, text, { after })).events;
}

/** The usage of the turn whose events end with its `turn.ended`. */
function endUsage(events: readonly CanonicalEvent[]): Usage | undefined {
  const end = events.at(-1);
  return end?.type === "turn.ended" ? end.data.usage : undefined;
}

function stepUsages(events: readonly CanonicalEvent[]): Usage[] {
  return events.flatMap((event) =>
    event.type === "step.ended" && event.data.usage !== undefined ? [event.data.usage] : [],
  );
}

describe("file changes, todos and context", () => {
  it("a turn's files.changed, diffs, VCS status and todos; the session's spending is its steps'", async () => {
    const session = await client.createSession();
    expect(session.capabilities).toMatchObject({ changes: true, todos: true });
    const first = await turn(
      session.id,
      `${write("a.txt", "one\ntwo\n")} ${write("old.txt", "a\nB\nc\n")} [[tool todowrite ${JSON.stringify({ todos: TODOS })}]] [[reply written]]`,
      0,
    );
    const firstTurn = first[0]?.turnId as string;
    const firstEnd = first.at(-1) as CanonicalEvent;
    expect(firstEnd.data).toMatchObject({ outcome: "completed", text: "written" });

    // The todo list, as the tool wrote it, durable, in the turn.
    const todoUpdated = first.find((event) => event.type === "todo.updated");
    expect(todoUpdated).toMatchObject({ durable: true, data: { todos: TODOS } });

    // After the turn's end: the files it changed, with their lines.
    const changed = (
      await readUntil(client, session.id, (event) => event.type === "files.changed", {
        after: firstEnd.seq ?? 0,
        what: "files.changed",
      })
    ).at(-1);
    expect(changed).toMatchObject({ type: "files.changed", durable: true, turnId: firstTurn });
    if (changed?.type !== "files.changed") throw new Error("no files.changed");
    const byPath = <F extends { path: string }>(files: readonly F[]): F[] =>
      [...files].sort((a, b) => a.path.localeCompare(b.path));
    expect(byPath(changed.data.files)).toEqual([
      { path: "a.txt", status: "added", additions: 2, deletions: 0 },
      { path: "old.txt", status: "modified", additions: 2, deletions: 1 },
    ]);
    expect(changed.data.moreFiles).toBeUndefined();

    // The changes route: the same files, with unified diffs showing the new lines.
    const ofTurn = await client.changes(session.id, { turnId: firstTurn });
    expect(byPath(ofTurn.files).map(({ patch: _patch, ...file }) => file)).toEqual(
      byPath(changed.data.files),
    );
    const patches = Object.fromEntries(ofTurn.files.map((file) => [file.path, file.patch ?? ""]));
    expect(patches["a.txt"]).toMatch(/^\+one$/m);
    expect(patches["a.txt"]).toMatch(/^\+two$/m);
    expect(patches["old.txt"]).toMatch(/^-b$/m);
    expect(patches["old.txt"]).toMatch(/^\+B$/m);
    expect(patches["old.txt"]).toMatch(/^\+c$/m);
    // The working tree's status lists them too.
    const vcs = await client.vcs(session.id);
    expect(vcs.branch).toEqual(expect.any(String));
    expect(byPath(vcs.files)).toEqual(byPath(changed.data.files));

    // The todos route agrees with the event, for a second client too (live and kept).
    expect(await client.todos(session.id)).toEqual(TODOS);
    const other = new BridgeClient({
      url: real.current.sidecar.url,
      token: real.current.token,
      WebSocket: NodeWebSocket,
    });
    try {
      expect(await other.todos(session.id)).toEqual(TODOS);
      const kept = await readUntil(other, session.id, (event) => event.seq === changed.seq, {
        what: "the kept events up to files.changed",
      });
      expect(kept.find((event) => event.type === "todo.updated")).toEqual(todoUpdated);
      const live = liveConversationOf(session.id, kept);
      expect(live.todos).toEqual(TODOS);
      expect(live.filesChanged).toEqual({ turnId: firstTurn, files: changed.data.files });
    } finally {
      other.close();
    }

    // A turn that writes nothing: no change of its own; the session's are still the first's.
    const second = await turn(session.id, "[[reply nothing to write]]", changed.seq ?? 0);
    const secondTurn = second[0]?.turnId as string;
    expect((await client.changes(session.id, { turnId: secondTurn })).files).toEqual([]);
    const whole = await client.changes(session.id);
    expect(byPath(whole.files).map((file) => file.path)).toEqual(["a.txt", "old.txt"]);

    // What it spent: the sum of its steps' usage, as the step events say; the latest turn's.
    const transcript = await client.transcript(session.id);
    const steps = stepUsages(transcript);
    expect(steps.length).toBeGreaterThanOrEqual(5);
    const sum = steps.reduce<Usage | undefined>(
      (total, usage) => addUsage(total, usage),
      undefined,
    );
    const context = await client.context(session.id);
    expect(context.spent).toEqual(sum);
    expect(context.spent?.tokens.input).toBeGreaterThan(0);
    expect(context.spent?.tokens.output).toBeGreaterThan(0);
    expect(context.total).toEqual(sum);
    expect(context.children).toEqual([]);
    expect(context.turn).toEqual({
      turnId: secondTurn,
      spent: endUsage(second),
      running: false,
    });
    const lastStep = steps.at(-1) as Usage;
    expect(context.context).toMatchObject({ tokens: tokensInContext(lastStep), model: DEMO_MODEL });
    expect(context.context?.tokens).toBeGreaterThan(0);
    const firstTurnContext = await client.context(session.id, { turnId: firstTurn });
    expect(firstTurnContext.turn?.spent).toEqual(endUsage(first));
    // The live conversation keeps the same sums.
    const live = liveConversationOf(session.id, transcript);
    expect(live.spent).toEqual(sum);
    expect(live.contextTokens).toBe(tokensInContext(lastStep));
    // The sidecar's snapshot is that state (each turn's files in it), read twice (kept, then
    // folded on from where it was).
    expect(live.turnFiles[firstTurn]).toEqual({ files: changed.data.files });
    expect(await client.live(session.id)).toEqual(live);
    expect(await client.live(session.id)).toEqual(live);

    // A turn that is not the session's: 404.
    const unknown = await client
      .changes(session.id, { turnId: "turn_msg_nosuchturn" })
      .catch((error) => error);
    expect(unknown).toBeInstanceOf(BridgeApiError);
    expect(unknown).toMatchObject({ status: 404 });
  });

  it("a turn's changes are its own (not the earlier turns'); the session's leave out an undone turn", async () => {
    const session = await client.createSession();
    const first = await sentTurn(client, session.id, `${write("log.txt", "1\n")} [[reply one]]`);
    const second = await sentTurn(
      client,
      session.id,
      `${write("log.txt", "1\n2\n")} [[reply two]]`,
      { after: first.end.seq ?? 0 },
    );
    // Against the last commit the file is new with two lines; the second turn added one line
    // to a file the first had made.
    const ownChange = { path: "log.txt", status: "modified", additions: 1, deletions: 0 };
    const changed = (
      await readUntil(
        client,
        session.id,
        (event) => event.type === "files.changed" && event.turnId === second.turnId,
        { after: second.end.seq ?? 0, what: "the second turn's files.changed" },
      )
    ).at(-1);
    expect(changed).toMatchObject({ data: { files: [ownChange] } });
    const ofSecond = await client.changes(session.id, { turnId: second.turnId });
    expect(ofSecond.files).toEqual([{ ...ownChange, patch: expect.any(String) }]);
    expect(ofSecond.files[0]?.patch).toMatch(/^\+2$/m);
    expect(ofSecond.files[0]?.patch).not.toMatch(/^\+1$/m);
    const ofFirst = await client.changes(session.id, { turnId: first.turnId });
    expect(ofFirst.files.map(({ patch: _patch, ...file }) => file)).toEqual([
      { path: "log.txt", status: "added", additions: 1, deletions: 0 },
    ]);
    const whole = async () =>
      (await client.changes(session.id)).files.map(({ patch: _patch, ...file }) => file);
    expect(await whole()).toEqual([
      { path: "log.txt", status: "added", additions: 2, deletions: 0 },
    ]);

    // Undo the second turn: the session's changes are the first's; the second's stay its own.
    await client.revert(session.id, second.inputId);
    expect(await whole()).toEqual([
      { path: "log.txt", status: "added", additions: 1, deletions: 0 },
    ]);
    expect((await client.changes(session.id, { turnId: second.turnId })).files).toEqual(
      ofSecond.files,
    );
    await client.unrevert(session.id);
    expect(await whole()).toEqual([
      { path: "log.txt", status: "added", additions: 2, deletions: 0 },
    ]);
  });
});
