/**
 * What the open session's parts may do (answer an ask), bound to the client and session and
 * handed down by context, so that the parts stay plain renderings of the state.
 */
import type { BridgeClient, PermissionReply } from "opencode-bridge/client";
import { createContext } from "preact";
import { useContext } from "preact/hooks";

const ACTION_BOUND_MS = 30_000;

export interface SessionActions {
  replyPermission(requestId: string, reply: PermissionReply, message?: string): Promise<void>;
  answerQuestion(requestId: string, answers: string[][]): Promise<void>;
  rejectQuestion(requestId: string): Promise<void>;
  /** Opens a subagent's child conversation (a session of its own, read through this one). */
  openChild(childSessionId: string): void;
  /** The address of a child conversation (for a link's href). */
  childHref(childSessionId: string): string;
  /** Whether the session can be reverted to before an input (`capabilities.revert`). */
  canRevert: boolean;
  /** Undo: the session goes back to before `inputId`, it and all after it set aside. */
  revert(inputId: string): Promise<void>;
  /** Redo: takes the last undo back (while no message has followed it). */
  unrevert(): Promise<void>;
  /** An image an input carried, as the sidecar keeps it (rejects when it does not). */
  sentImage(inputId: string, index: number, signal: AbortSignal): Promise<Blob>;
}

export function sessionActions(
  client: BridgeClient,
  sessionId: string,
  openChild: (childSessionId: string) => void,
  onError: (error: unknown) => void,
  canRevert: boolean,
): SessionActions {
  const reported = async (call: Promise<void>) => {
    try {
      await call;
    } catch (error) {
      onError(error);
    }
  };
  return {
    replyPermission: (requestId, reply, message) =>
      reported(
        client.replyPermission(sessionId, requestId, reply, {
          timeoutMs: ACTION_BOUND_MS,
          ...(message === undefined || message === "" ? {} : { message }),
        }),
      ),
    answerQuestion: (requestId, answers) =>
      reported(
        client.answerQuestion(sessionId, requestId, answers, { timeoutMs: ACTION_BOUND_MS }),
      ),
    rejectQuestion: (requestId) =>
      reported(client.rejectQuestion(sessionId, requestId, { timeoutMs: ACTION_BOUND_MS })),
    openChild,
    childHref: (childSessionId) =>
      `#${new URLSearchParams({ session: childSessionId, parent: sessionId }).toString()}`,
    canRevert,
    revert: (inputId) =>
      reported(client.revert(sessionId, inputId, { timeoutMs: ACTION_BOUND_MS })),
    unrevert: () => reported(client.unrevert(sessionId, { timeoutMs: ACTION_BOUND_MS })),
    sentImage: (inputId, index, signal) =>
      client.inputImage(sessionId, inputId, index, { signal, timeoutMs: ACTION_BOUND_MS }),
  };
}

export const SessionActionsContext = createContext<SessionActions | undefined>(undefined);

export function useSessionActions(): SessionActions {
  const actions = useContext(SessionActionsContext);
  if (actions === undefined) throw new Error("useSessionActions outside a SessionActionsContext");
  return actions;
}
