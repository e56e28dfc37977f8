/**
 * The open session's conversation: its messages in order (inputs still queued are shown by the
 * composer, not here), kept scrolled to the end while the reader is there (see follow-scroll),
 * or what to do first when it has none yet. A long one is drawn from its last turns, earlier
 * ones as the reader goes up (see use-render-window); what counts messages (the model
 * switches' places, a steered turn's keys) counts them all, drawn or not.
 */
import type { LiveConversation, Message, ModelSwitch } from "opencode-bridge/client";
import { Fragment } from "preact";
import { AssistantMessageView } from "./assistant-message.js";
import { EarlierMessages } from "./earlier-messages.js";
import { useFollowScroll } from "./follow-scroll.js";
import { ModelSwitchMark } from "./model-switch-mark.js";
import { neverRan, turnsWithInput } from "./never-ran.js";
import { RedoBar } from "./redo-bar.js";
import { messageWeight } from "./render-window.js";
import { useRenderWindow } from "./use-render-window.js";
import { UserMessageView } from "./user-message.js";

export function ConversationView(props: {
  live: LiveConversation | undefined;
  error: string | undefined;
  onRetry: () => void;
  /** Changes when the reader sends: the view goes to the end. */
  followRequest: number;
}) {
  const { live } = props;
  const follow = useFollowScroll(live, props.followRequest);
  const queued = new Set(live?.queued.map((input) => input.inputId));
  const messages = live?.conversation.messages ?? [];
  const withInput = turnsWithInput(messages);
  const drawn = (message: Message): boolean =>
    message.role === "user"
      ? !queued.has(message.inputId)
      : !neverRan(message, live?.endReasons[message.turnId], withInput);
  const shown = useRenderWindow(
    messages,
    (message) => (drawn(message) ? messageWeight(message) : 0),
    follow.scroller,
  );
  const empty = live !== undefined && messages.length === 0;
  const switches = live?.modelSwitches ?? [];
  // The model switches are placed by how many user messages came before: the hidden ones too.
  let users = messages.slice(0, shown.start).filter((message) => message.role === "user").length;
  return (
    <div class="conversation-frame">
      <div
        class="conversation"
        data-testid="conversation"
        ref={follow.scroller}
        role="log"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll container the keyboard must reach to scroll
        tabIndex={0}
        aria-label="Conversation"
        aria-busy={live === undefined}
        onScroll={follow.onScroll}
      >
        <div class="conversation-content" ref={follow.content}>
          {props.error === undefined ? null : (
            <p class="problem" role="alert">
              {props.error}{" "}
              <button type="button" onClick={props.onRetry}>
                Try again
              </button>
            </p>
          )}
          {live === undefined && props.error === undefined ? <p class="muted">Loading…</p> : null}
          {empty ? (
            <div class="conversation-empty" data-testid="conversation-empty">
              <p>No messages yet.</p>
              <p class="muted">
                Write to the agent below: Enter sends, Shift+Enter starts a new line.
              </p>
            </div>
          ) : null}
          {shown.start === 0 ? null : (
            <EarlierMessages
              hidden={shown.hidden}
              scroller={follow.scroller}
              onShow={shown.showEarlier}
            />
          )}
          {live?.conversation.messages.slice(shown.start).map((message, offset) => {
            const index = shown.start + offset;
            return message.role === "user" ? (
              <Fragment key={message.inputId}>
                <SwitchMarks switches={switches} afterInputs={users++} />
                {queued.has(message.inputId) ? null : <UserMessageView message={message} />}
              </Fragment>
            ) : !drawn(message) ? null : (
              <AssistantMessageView
                key={segmentKey(messages, index)}
                message={message}
                streaming={live.streaming}
                pendingAsks={live.pendingAsks}
                running={live.running === message.turnId && isLastOfTurn(messages, index)}
                turnRunning={live.running === message.turnId}
                runningSince={live.running === message.turnId ? live.runningSince : undefined}
                usage={live.running === message.turnId ? live.usage : undefined}
                reason={isLastOfTurn(messages, index) ? live.endReasons[message.turnId] : undefined}
              />
            );
          })}
          <SwitchMarks switches={switches} afterInputs={users} />
          {live?.conversation.undone === undefined ? null : (
            <RedoBar undone={live.conversation.undone} running={live.running !== undefined} />
          )}
        </div>
      </div>
      <p class="visually-hidden" role="status" data-testid="earlier-shown">
        {shown.announcement}
      </p>
      {follow.behind ? (
        <button
          type="button"
          class="jump-to-latest"
          data-testid="jump-to-latest"
          onClick={follow.jumpToLatest}
        >
          ↓ Jump to latest
        </button>
      ) : null}
    </div>
  );
}

/** The model switches that came after `afterInputs` user messages and before the next. */
function SwitchMarks(props: { switches: readonly ModelSwitch[]; afterInputs: number }) {
  return (
    <>
      {props.switches.map((mark, index) =>
        mark.afterInputs === props.afterInputs ? (
          // Switches are only ever appended: the index is stable.
          <ModelSwitchMark key={index} mark={mark} />
        ) : null,
      )}
    </>
  );
}

/**
 * A turn that took a steer has a message before the steer and one after it: keyed by the
 * turn and their order, so that each keeps its own element.
 */
function segmentKey(messages: readonly Message[], index: number): string {
  const message = messages[index];
  const turnId = message?.role === "assistant" ? message.turnId : "";
  const before = messages
    .slice(0, index)
    .filter((other) => other.role === "assistant" && other.turnId === turnId).length;
  return before === 0 ? turnId : `${turnId}#${before}`;
}

/** Whether no later message of the turn follows (its outcome and running state show there). */
function isLastOfTurn(messages: readonly Message[], index: number): boolean {
  const message = messages[index];
  const turnId = message?.role === "assistant" ? message.turnId : "";
  return !messages
    .slice(index + 1)
    .some((other) => other.role === "assistant" && other.turnId === turnId);
}
