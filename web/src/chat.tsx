/** The chat's layout: sessions on the side, the open session's header, conversation and composer. */
import type { BridgeClient } from "opencode-bridge/client";
import { useCallback, useState } from "preact/hooks";
import { Composer } from "./composer/composer.js";
import { ConversationView } from "./conversation/conversation-view.js";
import { describe, useLiveSession } from "./live-session.js";
import { putSessionInUrl, sessionFromUrl } from "./open-session-url.js";
import { SessionHeader } from "./session-header.js";
import { SessionList } from "./session-list.js";
import { useSessions } from "./sessions.js";
import { ThemeToggle } from "./theme-toggle.js";

export function Chat(props: { client: BridgeClient; onError: (error: unknown) => void }) {
  const { client } = props;
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const report = useCallback(
    (error: unknown) => {
      setProblem(describe(error));
      props.onError(error);
    },
    [props.onError],
  );
  const sessions = useSessions(client, props.onError);
  const [openId, setOpenId] = useState(() => sessionFromUrl());
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const { live, error } = useLiveSession(client, openId);
  const open = (sessionId: string) => {
    putSessionInUrl(sessionId);
    setOpenId(sessionId);
    setSidebarOpen(false);
  };
  const info = sessions.list?.find((session) => session.id === openId);

  return (
    <div class={sidebarOpen ? "layout sidebar-open" : "layout"}>
      <aside class="sidebar" id="sidebar">
        <SessionList
          sessions={sessions.list}
          openId={openId}
          live={live}
          onOpen={open}
          onNew={async () => {
            try {
              const created = await client.createSession({}, { timeoutMs: 30_000 });
              await sessions.refresh();
              open(created.id);
            } catch (failure) {
              report(failure);
            }
          }}
        />
      </aside>
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
          {openId === undefined ? (
            <h1 class="session-heading">opencode-bridge</h1>
          ) : (
            <SessionHeader
              key={openId}
              title={info?.title ?? openId}
              onRename={async (title) => {
                try {
                  await client.renameSession(openId, title, { timeoutMs: 10_000 });
                  await sessions.refresh();
                } catch (failure) {
                  report(failure);
                }
              }}
            />
          )}
          <ThemeToggle />
        </header>
        {problem === undefined ? null : (
          <div class="problem" role="alert">
            {problem}
            <button type="button" aria-label="Dismiss" onClick={() => setProblem(undefined)}>
              ×
            </button>
          </div>
        )}
        {openId === undefined ? (
          <section class="empty">
            <p>Open a session on the side, or start a new one.</p>
          </section>
        ) : (
          <>
            <ConversationView live={live} error={error} />
            <Composer
              key={openId}
              client={client}
              sessionId={openId}
              live={live}
              onError={report}
            />
          </>
        )}
      </main>
    </div>
  );
}
