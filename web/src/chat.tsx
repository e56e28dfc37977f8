/** The chat's layout: sessions on the side; the open session's header, conversation and composer. */
import type { BridgeClient } from "opencode-bridge/client";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { Composer } from "./composer/composer.js";
import { DirectoryGone } from "./composer/directory-gone.js";
import { ConnectionBanner, useClientConnection } from "./connection-banner.js";
import { ConversationView } from "./conversation/conversation-view.js";
import { useLiveSession } from "./live-session.js";
import { useModelCatalog } from "./model-catalog.js";
import { useNewSession } from "./new-session.js";
import { type OpenTarget, putTargetInUrl, targetFromUrl } from "./open-session-url.js";
import { TurnReviewContext } from "./review/review-context.js";
import { ReviewDrawer } from "./review/review-drawer.js";
import { SessionLineage } from "./review/session-lineage.js";
import { useReview } from "./review/use-review.js";
import { SandboxBadge } from "./sandbox-badge.js";
import { SessionActionsContext, sessionActions } from "./session-actions.js";
import { SessionHeading } from "./session-heading.js";
import { SessionList } from "./session-list.js";
import { useSessionProblems } from "./session-problems.js";
import { useSessions } from "./sessions.js";
import { ThemeToggle } from "./theme-toggle.js";

const CALL_BOUND_MS = 30_000;

export function Chat(props: {
  client: BridgeClient;
  onError: (error: unknown) => void;
  /** Nothing answers at the sidecar's address any more (sessions.ts). */
  onGone: () => void;
}) {
  const { client, onError, onGone } = props;
  const sessions = useSessions(client, onError);
  useEffect(() => {
    if (sessions.gone) onGone();
  }, [sessions.gone, onGone]);
  const [target, setTarget] = useState<OpenTarget | undefined>(() => targetFromUrl());
  const [sidebarOpen, setSidebarOpen] = useState(false);
  // Counts the reader's sends: each takes the conversation to its end.
  const [sends, setSends] = useState(0);
  const { live, turnChanges, error, retry } = useLiveSession(client, target);
  const catalog = useModelCatalog(client, live !== undefined || target === undefined);
  const socket = useClientConnection(client);
  const go = useCallback((next: OpenTarget) => {
    putTargetInUrl(next);
    setTarget(next);
    setSidebarOpen(false);
  }, []);
  useEffect(() => {
    // A fragment edited by hand (or a link to another session) opens what it names.
    const follow = () => setTarget(targetFromUrl());
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  useEffect(() => {
    if (!sidebarOpen) return;
    // On a phone the list covers the conversation: Escape folds it away again.
    const close = (event: KeyboardEvent) => event.key === "Escape" && setSidebarOpen(false);
    document.addEventListener("keydown", close);
    return () => document.removeEventListener("keydown", close);
  }, [sidebarOpen]);
  const sessionId = target?.sessionId;
  const parentId = target?.parentId;
  const problems = useSessionProblems(sessionId, onError);
  const { reportFor } = problems;
  const newSession = useNewSession(
    client,
    (createdId) => {
      // Open it at once; the list shows it after its refresh.
      go({ sessionId: createdId });
      void sessions.refresh();
    },
    reportFor(undefined),
  );
  // The list's entry of what is open: a child conversation is its parent's.
  const listedId = parentId ?? sessionId;
  const info = sessions.list?.find((session) => session.id === sessionId);
  const canRevert = info?.capabilities?.revert === true;
  const actions = useMemo(
    () =>
      sessionId === undefined
        ? undefined
        : sessionActions(
            client,
            sessionId,
            (childId) => go({ sessionId: childId, parentId: sessionId }),
            reportFor(sessionId),
            parentId === undefined && canRevert,
          ),
    [client, sessionId, parentId, go, reportFor, canRevert],
  );
  const { refresh: refreshSessions } = sessions;
  const onForked = useCallback(
    (forkId: string) => {
      go({ sessionId: forkId });
      void refreshSessions();
    },
    [go, refreshSessions],
  );
  const review = useReview({
    client,
    sessionId,
    isChild: parentId !== undefined,
    info,
    live,
    turnChanges,
    onForked,
    onError: reportFor(sessionId),
  });

  return (
    <div class={sidebarOpen ? "layout sidebar-open" : "layout"}>
      <aside class="sidebar" id="sidebar">
        <SessionList
          sessions={sessions.list}
          openId={listedId}
          live={parentId === undefined ? live : undefined}
          onOpen={(id) => go({ sessionId: id })}
          creating={newSession.creating}
          onNew={() => void newSession.create()}
        />
      </aside>
      {sidebarOpen ? (
        // A tap beside the drawer (on a phone) closes it; the keyboard has Escape and the toggle.
        <div
          class="sidebar-backdrop"
          data-testid="sidebar-backdrop"
          aria-hidden="true"
          onClick={() => setSidebarOpen(false)}
        />
      ) : null}
      <main class="main">
        <header class="topbar">
          <button
            type="button"
            class="sidebar-toggle"
            data-testid="sidebar-toggle"
            aria-controls="sidebar"
            aria-expanded={sidebarOpen}
            aria-label={sidebarOpen ? "Hide sessions" : "Show sessions"}
            onClick={() => setSidebarOpen(!sidebarOpen)}
          >
            ☰
          </button>
          <SessionHeading
            target={target}
            title={info?.title}
            onBack={() => parentId !== undefined && go({ sessionId: parentId })}
            onRename={async (title) => {
              if (sessionId === undefined) return;
              try {
                await client.renameSession(sessionId, title, { timeoutMs: CALL_BOUND_MS });
                await sessions.refresh();
              } catch (failure) {
                reportFor(sessionId)(failure);
              }
            }}
          />
          {parentId === undefined ? <SandboxBadge sandbox={info?.sandbox} /> : null}
          {review.context?.canReview === true ? (
            <button
              type="button"
              class="review-open"
              data-testid="review-open"
              aria-label="Changes: review what the session changed"
              aria-expanded={review.scope !== undefined}
              onClick={() => (review.scope === undefined ? review.open() : review.close())}
            >
              <span class="review-open-long">Changes</span>
              <span class="review-open-short" aria-hidden="true">
                ±
              </span>
            </button>
          ) : null}
          <ThemeToggle />
        </header>
        <ConnectionBanner
          socket={socket}
          live={info?.directoryMissing === true ? undefined : live}
        />
        {problems.shown === undefined ? null : (
          <div class="problem" role="alert">
            {problems.shown}
            <button type="button" aria-label="Dismiss" onClick={problems.dismiss}>
              ×
            </button>
          </div>
        )}
        {sessionId === undefined ? (
          <section class="empty">
            <p>Open a session on the side, or start a new one.</p>
          </section>
        ) : (
          <SessionActionsContext.Provider value={actions}>
            <TurnReviewContext.Provider value={review.context}>
              {parentId === undefined ? (
                <SessionLineage
                  sessionId={sessionId}
                  forkedFrom={live?.conversation.forkedFrom}
                  sessions={sessions.list}
                  onOpen={(id) => go({ sessionId: id })}
                />
              ) : null}
              <ConversationView
                key={sessionId}
                live={live}
                error={error}
                onRetry={retry}
                followRequest={sends}
              />
            </TurnReviewContext.Provider>
            {parentId !== undefined ? (
              <p class="child-note muted">
                A subagent's conversation: its parent's turn drives it.
              </p>
            ) : info?.directoryMissing === true ? (
              <DirectoryGone
                directory={info.directory}
                creating={newSession.creating}
                onContinue={() => void newSession.create()}
              />
            ) : (
              <Composer
                key={sessionId}
                client={client}
                sessionId={sessionId}
                live={live}
                catalog={catalog}
                sessionModel={info?.model}
                canRemoveQueued={info?.capabilities?.cancelQueued === true}
                onError={reportFor(sessionId)}
                onSent={() => setSends((count) => count + 1)}
              />
            )}
            {review.scope === undefined ? null : (
              <ReviewDrawer
                client={client}
                sessionId={sessionId}
                turnId={review.scope.turnId}
                openedOn={review.scope.openedOn}
                changedWhen={[live?.filesChanged, live?.conversation.undone]}
                onScope={review.setTurn}
                onClose={review.close}
              />
            )}
          </SessionActionsContext.Provider>
        )}
      </main>
    </div>
  );
}
