import type { UserMessage } from "opencode-bridge/client";
import { memo } from "preact/compat";
import { TurnActions } from "../review/turn-actions.js";
import { Attachment } from "./attachment.js";

export const UserMessageView = memo(function UserMessageView(props: { message: UserMessage }) {
  const { message } = props;
  // The turn's actions sit under the bubble, not in it: the bubble is what was sent.
  return (
    <div class="user-turn" data-testid="user-turn">
      <article class="message user" data-testid="message-user" aria-label="Your message">
        <p class="user-text">{message.text}</p>
        {message.files === undefined || message.files.length === 0 ? null : (
          <ul class="attachments">
            {message.files.map((ref, index) => (
              <li key={`${index}:${ref}`} data-testid="user-attachment">
                <Attachment
                  text={message.text}
                  fileRef={ref}
                  inputId={message.inputId}
                  index={index}
                />
              </li>
            ))}
          </ul>
        )}
        {message.cancelled === undefined ? null : (
          <p class="muted">Not delivered: {message.cancelled}</p>
        )}
      </article>
      <TurnActions message={message} />
    </div>
  );
});
