/**
 * The top bar's status: a quiet context meter (tokens in the model's context against its limit)
 * that opens a popover with what was spent (the latest turn, the session, its subagents) and the
 * project's MCP servers. Usage stays quiet; a failed MCP server or a failed read is loud (a
 * warning on the button itself).
 */
import type { LiveConversation, McpServerInfo, Usage } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { NotifyToggle } from "./notify-toggle.js";
import { COUNT, compactCount, usageLine, usageTokens } from "./usage-text.js";
import type { SessionStatus } from "./use-session-status.js";

/** MCP states that need the reader (anything but connected or switched off). */
const QUIET_MCP = new Set(["connected", "disabled"]);

export function StatusButton(props: {
  status: SessionStatus;
  live: LiveConversation | undefined;
  onError: (error: unknown) => void;
}) {
  const { status, live } = props;
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!open) return;
    // Escape or a click elsewhere folds it; Escape gives the keyboard back to the button.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onClick = (event: MouseEvent) => {
      const inside = event.target instanceof Node && panel.current?.contains(event.target);
      if (!inside && !button.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onClick);
    };
  }, [open]);
  // The live count (each step's end) is newer than the last read's.
  const tokens = live?.contextTokens ?? status.context?.context?.tokens;
  const limit = status.context?.context?.limit;
  const failing = (status.mcp ?? []).filter((server) => !QUIET_MCP.has(server.status));
  const alarm = failing.length > 0 || status.mcpError !== undefined;
  const share =
    tokens !== undefined && limit !== undefined ? Math.min(1, tokens / limit) : undefined;
  const [shown, short] =
    tokens === undefined
      ? ["Status", "0"]
      : share === undefined
        ? [`${compactCount(tokens)} tokens`, compactCount(tokens)]
        : [`${Math.round(share * 100)}% context`, `${Math.round(share * 100)}%`];
  const label = [
    "Status",
    tokens === undefined
      ? undefined
      : `context ${COUNT.format(tokens)} tokens${limit === undefined ? "" : ` of ${COUNT.format(limit)}`}`,
    alarm ? "an MCP server needs attention" : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(": ");
  return (
    <div class="status-anchor">
      <button
        ref={button}
        type="button"
        class={alarm ? "status-open alarm" : "status-open"}
        data-testid="status-open"
        aria-label={label}
        aria-expanded={open}
        aria-controls="status-popover"
        onClick={() => {
          if (!open) status.refresh();
          setOpen(!open);
        }}
      >
        {alarm ? (
          <span class="status-alarm" aria-hidden="true">
            ⚠
          </span>
        ) : null}
        <span class="status-meter-text" aria-hidden="true">
          {shown}
        </span>
        <span class="status-meter-short" aria-hidden="true">
          {short}
        </span>
        {share === undefined ? null : (
          <span class="status-bar" aria-hidden="true">
            <span style={{ width: `${(share * 100).toFixed(1)}%` }} />
          </span>
        )}
      </button>
      {open ? (
        <section
          ref={panel}
          id="status-popover"
          class="status-popover"
          data-testid="status-popover"
          aria-label="Session status"
        >
          <ContextPart tokens={tokens} limit={limit} />
          <SpentPart status={status} />
          <McpPart servers={status.mcp} error={status.mcpError} />
          <section>
            <h2>Away from this tab</h2>
            <p class="muted">
              While the tab is hidden, its title and icon say when a turn ends or an ask waits.
            </p>
            <NotifyToggle onError={props.onError} />
          </section>
        </section>
      ) : null}
    </div>
  );
}

function ContextPart(props: { tokens: number | undefined; limit: number | undefined }) {
  const { tokens, limit } = props;
  return (
    <section>
      <h2>Context</h2>
      <p data-testid="status-context" data-tokens={tokens} data-limit={limit}>
        {tokens === undefined
          ? "Nothing in the model's context yet."
          : limit === undefined
            ? `${COUNT.format(tokens)} tokens; the model's catalog gives no limit.`
            : `${COUNT.format(tokens)} of ${COUNT.format(limit)} tokens (${((tokens / limit) * 100).toFixed(1)}%).`}
      </p>
    </section>
  );
}

function SpentPart(props: { status: SessionStatus }) {
  const { context, contextError } = props.status;
  return (
    <section>
      <h2>Spent</h2>
      {contextError === undefined ? null : (
        <p class="status-error" role="alert">
          Could not read what the session spent: {contextError}
        </p>
      )}
      <dl class="status-spent">
        <SpentRow
          name={context?.turn?.running === true ? "This turn so far" : "Last turn"}
          testId="status-turn-spent"
          usage={context?.turn?.spent}
        />
        <SpentRow name="This session" testId="status-session-spent" usage={context?.spent} />
        {context === undefined || context.children.length === 0 ? null : (
          // The sidecar sums the children's with the session's: one accounting, not a second.
          <SpentRow
            name={`With its ${context.children.length} subagent${context.children.length === 1 ? "" : "s"}`}
            testId="status-total-spent"
            usage={context.total}
          />
        )}
      </dl>
    </section>
  );
}

function SpentRow(props: { name: string; testId: string; usage: Usage | undefined }) {
  const { usage } = props;
  return (
    <>
      <dt>{props.name}</dt>
      <dd
        data-testid={props.testId}
        data-tokens={usage === undefined ? undefined : usageTokens(usage)}
        data-cost={usage?.cost}
      >
        {usage === undefined ? "nothing yet" : usageLine(usage)}
      </dd>
    </>
  );
}

function McpPart(props: { servers: McpServerInfo[] | undefined; error: string | undefined }) {
  const { servers, error } = props;
  return (
    <section>
      <h2>MCP servers</h2>
      {error === undefined ? null : (
        <p class="status-error" role="alert">
          Could not read the MCP servers: {error}
        </p>
      )}
      {servers === undefined ? (
        error === undefined ? (
          <p class="muted">This session's server does not say.</p>
        ) : null
      ) : servers.length === 0 ? (
        <p class="muted">None configured.</p>
      ) : (
        <ul class="mcp-list">
          {servers.map((server) => (
            <li key={server.name} data-testid="mcp-server" data-status={server.status}>
              <span class="mcp-name">{server.name}</span>{" "}
              <span class={QUIET_MCP.has(server.status) ? "mcp-state" : "mcp-state bad"}>
                {server.status.replaceAll("_", " ")}
              </span>
              {server.error === undefined ? null : <p class="mcp-error">{server.error}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
