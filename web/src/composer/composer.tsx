/**
 * The composer. Idle: Enter sends. While a turn runs: "Send now" steers the input into it,
 * "Queue" (and Enter) makes it the next turn, and Stop interrupts. Shift+Enter is a newline.
 */
import type { BridgeClient, LiveConversation } from "opencode-bridge/client";
import { useState } from "preact/hooks";

export interface ComposerProps {
  client: BridgeClient;
  sessionId: string;
  live: LiveConversation | undefined;
  onError: (error: unknown) => void;
}

const SEND_BOUND_MS = 60_000;

export function Composer(props: ComposerProps) {
  const { client, sessionId } = props;
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const running = props.live?.running !== undefined;

  const send = async (delivery: "steer" | "queue") => {
    const message = text.trim();
    if (message === "" || sending) return;
    setSending(true);
    try {
      await client.send(sessionId, { text: message, delivery }, { timeoutMs: SEND_BOUND_MS });
      setText("");
    } catch (error) {
      props.onError(error);
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      class="composer"
      aria-label="Message"
      onSubmit={(event) => {
        event.preventDefault();
        void send("queue");
      }}
    >
      {props.live === undefined ? null : (
        <ul class="queued" aria-label="Queued inputs">
          {props.live.queued.map((input) => (
            <li key={input.inputId} data-testid="queued-input" data-input-id={input.inputId}>
              <span class="badge">{input.delivery === "steer" ? "steering" : "queued"}</span>{" "}
              {input.text}
            </li>
          ))}
        </ul>
      )}
      <textarea
        data-testid="composer-input"
        aria-label="Message to the agent"
        placeholder={running ? "Steer or queue a message…" : "Message the agent (Enter sends)"}
        rows={3}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            void send("queue");
          }
        }}
      />
      <div class="composer-actions">
        {running ? (
          <>
            <button
              type="button"
              data-testid="send-now"
              disabled={sending}
              onClick={() => void send("steer")}
            >
              Send now
            </button>
            <button
              type="button"
              data-testid="send-queue"
              disabled={sending}
              onClick={() => void send("queue")}
            >
              Queue
            </button>
            <button
              type="button"
              class="stop"
              data-testid="stop"
              onClick={() => {
                client.interrupt(sessionId, { timeoutMs: 30_000 }).catch(props.onError);
              }}
            >
              Stop
            </button>
          </>
        ) : (
          <button type="submit" data-testid="send" disabled={sending}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
