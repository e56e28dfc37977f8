/** The chat's layout: sessions on the side; the open session's header, conversation and composer. */
import type { BridgeClient } from "opencode-bridge/client";
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { Composer } from "./composer/composer.js";
import { DirectoryGone } from "./composer/directory-gone.js";
import { ConnectionBanner, useClientConnection } from "./connection-banner.js";
import { ContinueOffer, isLostUpstream } from "./continue-offer.js";
import { ConversationView } from "./conversation/conversation-view.js";
import { Landing } from "./landing/landing.js";
import { useLiveSession } from "./live-session.js";
import { useModelCatalog } from "./model-catalog.js";
import { useNewSession } from "./new-session.js";
import {
  clearTargetFromUrl,
  type OpenTarget,
  putTargetInUrl,
  targetFromUrl,
} from "./open-session-url.js";
import { PairingButton } from "./pairing/pairing-button.js";
import { RelayButton } from "./remote/relay-button.js";
import { TurnReviewContext } from "./review/review-context.js";
import { ReviewDrawer } from "./review/review-drawer.js";
import { SessionLineage } from "./review/session-lineage.js";
import type { TurnChanges } from "./review/turn-changes.js";
import { useReview } from "./review/use-review.js";
import { SandboxBadge } from "./sandbox-badge.js";
import { SessionActionsContext, sessionActions } from "./session-actions.js";
import { SessionHeading } from "./session-heading.js";
import { sessionLabel } from "./session-label.js";
import { SessionList } from "./session-list.js";
import { useSessionProblems } from "./session-problems.js";
import { Shortcuts } from "./shortcuts/shortcuts.js";
import { useSessionGroups } from "./side/session-groups.js";
import { useAwayAlerts } from "./status/away-alerts.js";
import { StatusButton } from "./status/status-popover.js";
import { TodoPanel } from "./status/todo-panel.js";
import { useSessionStatus } from "./status/use-session-status.js";
import { ThemeToggle } from "./theme-toggle.js";
import { titleOnFirstSend } from "./title-on-first-send.js";
import { OpenFileContext } from "./workbench/open-file-context.js";
import { useWorkbench, type WorkbenchPanel } from "./workbench/use-workbench.js";
import { WorkbenchButtons } from "./workbench/workbench-buttons.js";
import { WorkbenchDrawer } from "./workbench/workbench-drawer.js";

const CALL_BOUND_MS = 30_000;
/** A session's files by turn before it is read (one object: the review memoises on it). */
const NO_TURN_FILES: TurnChanges = {};

/** The chat runs through a relay (remote/remote-chat.tsx): which sidecar, and how to forget it. */
export interface ChatRemote {
  sidecarId: string;
  /** The relay it goes through (ws:// or wss://). */
  relay: string;
  /** Removes the pairing this browser keeps. */
  onForget: () => void;
}

export function Chat(props: {
  client: BridgeClient;
  onError: (error: unknown) => void;
  /** Nothing answers at the sidecar's address any more (sessions.ts). */
  onGone: () => void;
  /** Through a relay: the side list ends with the pairing's button; no "Open on your phone". */
  remote?: ChatRemote;
}) {
  const { client, onError, onGone } = props;
  const [target, setTarget] = useState<OpenTarget | undefined>(() => targetFromUrl());
  const sessions = useSessionGroups(client, target?.parentId ?? target?.sessionId, onError);
  useEffect(() => {
    if (sessions.gone) onGone();
  }, [sessions.gone, onGone]);
  // Where the landing page makes its session (undefined: the default project).
  const [newDirectory, setNewDirectory] = useState<string | undefined>(undefined);
  // Sessions whose OpenCode session is gone: a send was refused until they are continued.
  const [lost, setLost] = useState<ReadonlySet<string>>(new Set());
  const [sidebarOpen, setSidebarOpen] = useState(false);
  // Counts the reader's sends: each takes the conversation to its end.
  const [sends, setSends] = useState(0);
  const { live, error, retry } = useLiveSession(client, target);
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
  /** Nothing open: the landing page (after the open session was deleted). */
  const showLanding = useCallback(() => {
    clearTargetFromUrl();
    setTarget(undefined);
  }, []);
  const deleteSession = async (id: string) => {
    try {
      await client.killSession(id, { timeoutMs: CALL_BOUND_MS });
    } catch (failure) {
      reportFor(sessionId)(failure);
      throw failure;
    }
    if (id === sessionId || id === parentId) showLanding();
    await sessions.refresh();
  };
  // The list's entry of what is open: a child conversation is its parent's.
  const listedId = parentId ?? sessionId;
  const info = sessions.find(sessionId);
  // What the composer's first send needs to title an untitled session (read at the send).
  const known = useRef({ info, live });
  known.current = { info, live };
  const { refresh } = sessions;
  const composerClient = useMemo(
    () =>
      titleOnFirstSend(
        client,
        (id) =>
          known.current.info?.id === id &&
          known.current.info.title === undefined &&
          known.current.live?.conversation.messages.length === 0,
        () => void refresh(),
        (id, failure) => reportFor(id)(failure),
      ),
    [client, refresh, reportFor],
  );
  const allowedProjects = (sessions.groups ?? [])
    .map((group) => group.project)
    .filter((project) => project.allowed);
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
  const status = useSessionStatus(
    client,
    parentId === undefined ? sessionId : undefined,
    info,
    live,
  );
  // The open session's entry may be on no page of the list (a link to an old one): it is known too.
  const listedSessions = (sessions.groups ?? []).flatMap((group) => group.sessions ?? []);
  const openEntry = sessions.find(listedId);
  if (openEntry !== undefined && !listedSessions.includes(openEntry))
    listedSessions.push(openEntry);
  const finished = useAwayAlerts({
    live,
    listed: listedSessions,
    openId: listedId,
    labelOf: (id) => sessionLabel(sessions.find(id)?.title),
    // A click brings the notified session back (the open child, if it was the one notified).
    open: (id) =>
      go(id === sessionId && parentId !== undefined ? { sessionId, parentId } : { sessionId: id }),
  });
  const review = useReview({
    client,
    sessionId,
    isChild: parentId !== undefined,
    info,
    live,
    turnChanges: live?.turnFiles ?? NO_TURN_FILES,
    onForked,
    onError: reportFor(sessionId),
  });
  // The terminal and the files (a subagent's are its parent's): one panel at a time, and not
  // over the review panel.
  const workbenchId = parentId ?? sessionId;
  const workbench = useWorkbench(workbenchId);
  const { open: openPanel, close: closePanel } = workbench;
  const { close: closeReview } = review;
  const openFile = useCallback(
    (path: string) => {
      closeReview();
      openPanel({ kind: "files", path, isFile: true });
    },
    [closeReview, openPanel],
  );
  const togglePanel = (kind: WorkbenchPanel["kind"]) => {
    if (workbench.panel?.kind === kind && review.scope === undefined) return closePanel();
    closeReview();
    openPanel(kind === "terminal" ? { kind } : { kind, path: "", isFile: false });
  };

  return (
    <div class={sidebarOpen ? "layout sidebar-open" : "layout"}>
      <Shortcuts
        newSession={() => void newSession.create()}
        toggleSidebar={() => setSidebarOpen((open) => !open)}
        toggleReview={
          review.context?.canReview === true
            ? () => (review.scope === undefined ? review.open() : review.close())
            : undefined
        }
      />
      <aside class="sidebar" id="sidebar">
        <SessionList
          client={client}
          sessions={sessions}
          openId={listedId}
          live={parentId === undefined ? live : undefined}
          finished={finished}
          onOpen={(id) => go({ sessionId: id })}
          creating={newSession.creating}
          onNew={(directory) => void newSession.create(directory)}
          onDelete={deleteSession}
        />
        {props.remote === undefined ? null : <RelayButton remote={props.remote} />}
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
          {parentId === undefined && sessionId !== undefined ? (
            <StatusButton status={status} live={live} onError={reportFor(sessionId)} />
          ) : null}
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
          {workbenchId === undefined ? null : (
            <WorkbenchButtons
              open={review.scope === undefined ? workbench.panel?.kind : undefined}
              onToggle={togglePanel}
            />
          )}
          {/* Its code holds the token: a page through a relay has none to share. */}
          {props.remote === undefined ? <PairingButton target={target} /> : null}
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
          <Landing
            client={client}
            catalog={catalog}
            projects={allowedProjects}
            directory={newDirectory}
            onDirectory={setNewDirectory}
            onStarted={(started) => {
              sessions.reveal(started.directory);
              go({ sessionId: started.id });
              setSends((count) => count + 1);
              void sessions.refresh();
            }}
            onError={reportFor(undefined)}
          />
        ) : (
          <SessionActionsContext.Provider value={actions}>
            <TurnReviewContext.Provider value={review.context}>
              {parentId === undefined ? (
                <SessionLineage
                  sessionId={sessionId}
                  forkedFrom={live?.conversation.forkedFrom}
                  sessions={sessions.groups?.flatMap((group) => group.sessions ?? [])}
                  onOpen={(id) => go({ sessionId: id })}
                />
              ) : null}
              <OpenFileContext.Provider value={openFile}>
                <ConversationView
                  key={sessionId}
                  live={live}
                  error={error}
                  onRetry={retry}
                  followRequest={sends}
                />
              </OpenFileContext.Provider>
            </TurnReviewContext.Provider>
            <TodoPanel todos={live?.todos ?? status.todos} />
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
              <>
                {lost.has(sessionId) ? (
                  <ContinueOffer
                    onContinue={async () => {
                      try {
                        await client.continueSession(sessionId, { timeoutMs: CALL_BOUND_MS });
                        setLost((old) => without(old, sessionId));
                        // The sidecar closed and opened it again: its stream ended, follow anew.
                        retry();
                        await sessions.refresh();
                      } catch (failure) {
                        reportFor(sessionId)(failure);
                      }
                    }}
                  />
                ) : null}
                <Composer
                  key={sessionId}
                  client={composerClient}
                  sessionId={sessionId}
                  live={live}
                  catalog={catalog}
                  sessionModel={info?.model}
                  canRemoveQueued={info?.capabilities?.cancelQueued === true}
                  session={info}
                  onError={(failure) => {
                    // Refused until continued: the offer says why and what to do, not a banner.
                    if (isLostUpstream(failure) && info?.capabilities?.rehydrate !== false) {
                      setLost((old) => new Set(old).add(sessionId));
                    } else reportFor(sessionId)(failure);
                  }}
                  onSent={() => setSends((count) => count + 1)}
                />
              </>
            )}
            <OpenFileContext.Provider value={openFile}>
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
            </OpenFileContext.Provider>
            {review.scope !== undefined || workbenchId === undefined ? null : (
              <WorkbenchDrawer
                client={client}
                sessionId={workbenchId}
                panel={workbench.panel}
                info={sessions.find(workbenchId)}
                onClose={closePanel}
              />
            )}
          </SessionActionsContext.Provider>
        )}
      </main>
    </div>
  );
}

function without(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}
