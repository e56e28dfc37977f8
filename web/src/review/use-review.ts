/**
 * The open session's review state, for the chat: whether the review panel is open and on
 * which changes, and the turn actions' context (their changes, undo, fork). The panel closes
 * when another session opens.
 */
import type { BridgeClient, LiveConversation, SessionInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { TurnReview } from "./review-context.js";
import type { TurnChanges } from "./turn-changes.js";
import { undoableInputs } from "./undoable-inputs.js";

const FORK_BOUND_MS = 30_000;
/** Characters of a message's text that name its turn in the panel. */
const LABEL_CHARS = 60;

export interface ReviewScope {
  /** The changes shown: one turn's, or (undefined) the whole session's. */
  turnId: string | undefined;
  /** The turn it was opened on, to switch back to, with the words that name it. */
  openedOn: { turnId: string; label: string } | undefined;
}

export interface Review {
  /** The turn actions' context; undefined for a subagent's conversation. */
  context: TurnReview | undefined;
  /** Undefined while the panel is closed. */
  scope: ReviewScope | undefined;
  open: (turnId?: string) => void;
  setTurn: (turnId: string | undefined) => void;
  close: () => void;
}

export function useReview(options: {
  client: BridgeClient;
  sessionId: string | undefined;
  /** A subagent's conversation is read only: no turn actions. */
  isChild: boolean;
  info: SessionInfo | undefined;
  live: LiveConversation | undefined;
  turnChanges: TurnChanges;
  onForked: (forkId: string) => void;
  onError: (error: unknown) => void;
}): Review {
  const { client, sessionId, isChild, info, live, turnChanges, onForked, onError } = options;
  // Kept with the session it is of: opening another session closes the panel.
  const [opened, setOpened] = useState<(ReviewScope & { of: string }) | undefined>(undefined);
  const scope = opened !== undefined && opened.of === sessionId ? opened : undefined;
  // And forgotten then: coming back to the session does not bring the panel back.
  useEffect(() => setOpened((now) => (now?.of === sessionId ? now : undefined)), [sessionId]);
  const conversation = live?.conversation;
  const running = live?.running;
  const messages = conversation?.messages;
  // Read through refs: the chat hands new ones each render, and a new context each render
  // would redraw every turn's actions on every streamed delta.
  const report = useRef(onError);
  report.current = onError;
  const forked = useRef(onForked);
  forked.current = onForked;
  const open = useCallback(
    (turnId?: string) => {
      if (sessionId === undefined) return;
      const label = turnId === undefined ? undefined : turnLabel(messages ?? [], turnId);
      setOpened({
        of: sessionId,
        turnId,
        openedOn: turnId === undefined || label === undefined ? undefined : { turnId, label },
      });
    },
    [sessionId, messages],
  );
  const setTurn = useCallback(
    (turnId: string | undefined) => setOpened((now) => now && { ...now, turnId }),
    [],
  );
  const close = useCallback(() => setOpened(undefined), []);
  const canReview = info?.capabilities?.changes === true;
  // A session whose directory is gone is read only: nothing to undo or fork there.
  const readOnly = info?.directoryMissing === true;
  const canFork = info?.capabilities?.fork === true && !readOnly;
  const context = useMemo((): TurnReview | undefined => {
    if (sessionId === undefined || isChild) return undefined;
    return {
      turnChanges,
      messages: messages ?? [],
      undoable: readOnly ? new Set() : undoableInputs(conversation, running),
      canReview,
      canFork,
      openChanges: open,
      fork: async (inputId) => {
        try {
          const made = await client.fork(sessionId, inputId, { timeoutMs: FORK_BOUND_MS });
          // A fork keeps its origin's title: two sessions of one name in the list would be
          // told apart only by opening them.
          // A title it could not take is said (on this session's banner); the fork opens anyway.
          if (made.title !== undefined) {
            await client
              .renameSession(made.id, forkTitle(made.title), { timeoutMs: FORK_BOUND_MS })
              .catch(report.current);
          }
          forked.current(made.id);
        } catch (error) {
          report.current(error);
        }
      },
    };
  }, [
    client,
    sessionId,
    isChild,
    conversation,
    running,
    messages,
    turnChanges,
    canReview,
    canFork,
    readOnly,
    open,
  ]);
  return { context, scope, open, setTurn, close };
}

/** "turn 2, «its message»": the turn's place among the inputs and the start of its text. */
function turnLabel(
  messages: LiveConversation["conversation"]["messages"],
  turnId: string,
): string | undefined {
  const users = messages.filter((message) => message.role === "user");
  const index = users.findIndex((message) => message.turnId === turnId);
  const user = users[index];
  if (user === undefined) return undefined;
  const text = user.text.replace(/\s+/g, " ").trim();
  const cut = text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS)}…` : text;
  return `message ${index + 1}, “${cut}”`;
}

/** The title of a fork of a session titled `title`. */
export function forkTitle(title: string): string {
  return `${title} (fork)`;
}
