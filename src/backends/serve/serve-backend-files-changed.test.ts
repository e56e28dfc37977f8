/**
 * `files.changed` at a turn's end, through the real serve backend on a hand-fed transport (a
 * recorded text turn; the step snapshots and the VCS status answered by hand). The real server
 * is in test/e2e/sidecar-changes.test.ts; this pins what it cannot show: the event's id is its
 * turn's, so a turn's end read again (an adopted session) says it once, and a turn that changed
 * nothing says nothing.
 */
import { afterEach, expect, it } from "vitest";
import { handFedServeBackend } from "../../../test/support/hand-fed-serve-backend.js";
import { HandFedTransport, recordedEvents } from "../../../test/support/hand-fed-transport.js";
import { turnIdFor } from "../../events/turn-state.js";
import type { ServeBackend } from "./serve-backend.js";

const backends: ServeBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

/** A recorded text turn, with its steps said to have changed `files`. */
async function turnThatChanged(files: string[]) {
  const turn = recordedEvents("api-text-turn", "v2.session.events");
  const first = turn[0] as { data: { sessionID: string; messageID: string } };
  const { sessionID, messageID } = first.data;
  const transport = new HandFedTransport();
  // Newest first, as 1.18.33 pages them; a step names what it changed in `snapshot.files`.
  transport.answers.set("v2.session.messages", [
    {
      data: [
        { id: "msg_step", type: "assistant", snapshot: { files } },
        { id: messageID, type: "user" },
      ],
    },
  ]);
  transport.answers.set("vcs.status", [
    [
      { file: "a.txt", additions: 2, deletions: 0, status: "added" },
      { file: "other.txt", additions: 1, deletions: 1, status: "modified" },
    ],
  ]);
  const { backend, published, until } = handFedServeBackend(transport, sessionID);
  backends.push(backend);
  transport.feed("v2.session.events", turn);
  await until("the turn's end", () => published.some((event) => event.type === "turn.ended"));
  return { published, until, transport, turnId: turnIdFor(messageID) };
}

it("after a turn's end: files.changed with the files its steps changed, named by its turn", async () => {
  const { published, until, turnId } = await turnThatChanged(["a.txt"]);
  await until("files.changed", () => published.some((event) => event.type === "files.changed"));
  const changed = published.find((event) => event.type === "files.changed");
  expect(changed).toMatchObject({
    turnId,
    durable: true,
    data: { files: [{ path: "a.txt", status: "added", additions: 2, deletions: 0 }] },
  });
  expect(changed?.id).toBe(`session.files_${turnId}#0`);
  expect(published.indexOf(changed as never)).toBeGreaterThan(
    published.findIndex((event) => event.type === "turn.ended"),
  );
});

it("a turn whose steps changed no file: no files.changed", async () => {
  const { published, transport } = await turnThatChanged([]);
  // The messages were read; nothing more was asked (no file to count) and nothing said.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(transport.calls).toContain("v2.session.messages");
  expect(transport.calls).not.toContain("vcs.status");
  expect(published.some((event) => event.type === "files.changed")).toBe(false);
});
