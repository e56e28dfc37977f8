/**
 * A permission the agent waits for: what it wants (permission, patterns, the diff of an edit)
 * and the answers. Once answered (here or in another tab) the ask leaves the state and this
 * card gives way to a one-line record of the reply.
 *
 * An ask stops the turn until answered, so it takes the focus when it comes, on its primary
 * answer (Enter allows once, rather than queueing a message from the composer), and its three
 * answers look different: primary, secondary, danger.
 */
import type { PermissionPart } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";
import { DiffView } from "./diff-view.js";
import { rejectReasonOf, rememberRejectReason } from "./reject-reasons.js";

/** Why an edit's ask shows no diff, as the bridge said. */
const OMITTED: Record<NonNullable<PermissionPart["diffOmitted"]>, string> = {
  "outside-directory": "No diff: the file is outside the session directory.",
  "too-large": "No diff: the file, or the edit's result, is over 1 MiB.",
  "too-slow": "No diff: it took too long to compute (a large rewrite).",
};

export function PermissionAsk(props: { part: PermissionPart }) {
  const { part } = props;
  const actions = useSessionActions();
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const primary = useRef<HTMLButtonElement>(null);
  useEffect(() => primary.current?.focus(), []);
  const reply = async (answer: "once" | "always" | "reject") => {
    if (answer === "reject") rememberRejectReason(part.requestId, message);
    setBusy(true);
    try {
      await actions.replyPermission(
        part.requestId,
        answer,
        answer === "reject" ? message : undefined,
      );
    } finally {
      setBusy(false);
    }
  };
  const messageId = `reject-message-${part.requestId}`;
  return (
    <section
      class="ask ask-permission"
      data-testid="ask-permission"
      data-request-id={part.requestId}
      aria-label={`Permission asked: ${part.permission}`}
    >
      <header>
        <strong>Allow {part.permission}?</strong>
        {part.childSessionId === undefined ? null : <span class="muted"> (from a subagent)</span>}
      </header>
      <ul class="patterns">
        {part.patterns.map((pattern) => (
          <li key={pattern}>
            <code>{pattern}</code>
          </li>
        ))}
      </ul>
      {part.diff === undefined ? null : (
        <DiffView diff={part.diff} label={part.files?.join(", ")} path={onlyFile(part.files)} />
      )}
      {part.diffOmitted === undefined ? null : <p class="muted">{OMITTED[part.diffOmitted]}</p>}
      {part.always === undefined || part.always.length === 0 ? null : (
        <p class="muted">
          "Always" allows: <code>{part.always.join(", ")}</code>
        </p>
      )}
      <div class="ask-actions">
        <span class="ask-approve">
          <button
            ref={primary}
            type="button"
            class="primary"
            data-testid="allow-once"
            disabled={busy}
            onClick={() => void reply("once")}
          >
            Allow once
          </button>
          <button
            type="button"
            data-testid="allow-always"
            disabled={busy}
            onClick={() => void reply("always")}
          >
            Always
          </button>
        </span>
        <span class="ask-reject">
          <label for={messageId} class="visually-hidden">
            Why reject (optional, told to the model)
          </label>
          <input
            id={messageId}
            data-testid="reject-message"
            placeholder="Reason (optional)"
            value={message}
            onInput={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                void reply("reject");
              }
            }}
          />
          <button
            type="button"
            class="danger"
            data-testid="reject"
            disabled={busy}
            onClick={() => void reply("reject")}
          >
            Reject
          </button>
        </span>
      </div>
    </section>
  );
}

const REPLIES = { once: "allowed once", always: "always allowed" } as const;

/**
 * An ask no longer waiting: its reply, or that its turn ended first. A diff not allowed is
 * drawn as not applied; a rejection says so, with the reason when this page gave it.
 */
export function PermissionRecord(props: { part: PermissionPart }) {
  const { part } = props;
  const reason = part.reply === "reject" ? rejectReasonOf(part.requestId) : undefined;
  return (
    <div
      class={part.reply === "reject" ? "ask-record rejected" : "ask-record muted"}
      data-testid="permission-record"
      data-reply={part.reply ?? "none"}
    >
      <span>
        Permission {part.permission} <code>{part.patterns.join(", ")}</code>:{" "}
        {part.reply === "reject" ? (
          <strong class="rejected-mark">Rejected</strong>
        ) : part.reply === undefined ? (
          "not answered"
        ) : (
          REPLIES[part.reply]
        )}
      </span>
      {reason === undefined ? null : (
        <p class="reject-reason" data-testid="reject-reason">
          Reason: {reason}
        </p>
      )}
      {part.diff === undefined ? null : (
        <DiffView
          diff={part.diff}
          label={part.files?.join(", ")}
          path={onlyFile(part.files)}
          applied={part.reply === "once" || part.reply === "always"}
        />
      )}
    </div>
  );
}

/** The file an ask is about when it is one: the diff's language when its headers are missing. */
function onlyFile(files: readonly string[] | undefined): string | undefined {
  return files?.length === 1 ? files[0] : undefined;
}
