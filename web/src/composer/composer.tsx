/**
 * The composer. Idle: Enter sends. While a turn runs: "Send now" steers the input into it,
 * "Queue" (and Enter) makes it the next turn, and Stop interrupts. Shift+Enter is a newline.
 * Images are pasted, dropped or picked; files are attached by path.
 *
 * The box is cleared as soon as a message leaves it, and sends go out one after another in
 * the order they were made, so quick successive sends neither lose text nor swap places. What
 * is typed and attached is the session's draft (draft-store): opening another session and
 * coming back finds it again.
 */
import type {
  BridgeClient,
  LiveConversation,
  ModelCatalog,
  ModelRef,
} from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { AttachmentTray } from "./attachment-tray.js";
import { attachmentsToSend, draftAttachments, nameOf } from "./draft-attachments.js";
import { useDraft } from "./draft-store.js";
import { ModelPicker } from "./model-picker.js";
import { QueuedInputs } from "./queued-inputs.js";
import { rememberSentImage } from "./sent-images.js";

export interface ComposerProps {
  client: BridgeClient;
  sessionId: string;
  live: LiveConversation | undefined;
  catalog: ModelCatalog | undefined;
  /** The session's model as the sidecar last said (the live state's is newer when it has one). */
  sessionModel: ModelRef | undefined;
  /** The session's backend takes back a queued input (`capabilities.cancelQueued`). */
  canRemoveQueued: boolean;
  onError: (error: unknown) => void;
  /** A message left the box (the conversation goes to its end). */
  onSent: () => void;
}

const SEND_BOUND_MS = 60_000;
const CALL_BOUND_MS = 30_000;

export function Composer(props: ComposerProps) {
  const { client, sessionId, onError, onSent } = props;
  const [current, changeDraft] = useDraft(sessionId);
  const { text } = current;
  const setText = (update: (old: string) => string) =>
    changeDraft((old) => ({ ...old, text: update(old.text) }));
  const draft = draftAttachments(current, changeDraft);
  const [picked, setPicked] = useState<ModelRef | undefined>(undefined);
  const box = useRef<HTMLTextAreaElement>(null);
  const sends = useRef<Promise<void>>(Promise.resolve());
  const running = props.live?.running !== undefined;

  useEffect(() => box.current?.focus(), []);
  // A pick shows until the session says which model it has (from here or another tab).
  const liveModel = props.live?.model;
  useEffect(() => setPicked(undefined), [liveModel]);

  const send = (delivery: "steer" | "queue") => {
    const message = text.trim();
    const { images, paths } = draft;
    if (message === "" && images.length === 0 && paths.length === 0) return;
    for (const image of images) rememberSentImage(message, nameOf(image), image.url);
    setText(() => "");
    draft.clear();
    onSent();
    sends.current = sends.current.then(async () => {
      try {
        const attachments = await attachmentsToSend(images, paths);
        await client.send(
          sessionId,
          { text: message, delivery, ...(attachments.length === 0 ? {} : { attachments }) },
          { timeoutMs: SEND_BOUND_MS },
        );
      } catch (error) {
        // Not admitted: give the text back unless something new was typed meanwhile, and the
        // attachments with it.
        setText((current) => (current === "" ? message : current));
        draft.restore(images, paths);
        onError(error);
      }
    });
  };

  return (
    <form
      class="composer"
      aria-label="Message"
      onSubmit={(event) => {
        event.preventDefault();
        send("queue");
      }}
    >
      <QueuedInputs
        queued={props.live?.queued ?? []}
        onRemove={
          props.canRemoveQueued
            ? (inputId) => {
                client.cancelInput(sessionId, inputId, { timeoutMs: CALL_BOUND_MS }).catch(onError);
              }
            : undefined
        }
      />
      <AttachmentTray draft={draft} />
      <textarea
        ref={box}
        data-testid="composer-input"
        aria-label="Message to the agent"
        placeholder={
          running
            ? "Steer (Send now) or queue (Enter) a message…"
            : "Message the agent (Enter sends)"
        }
        rows={3}
        value={text}
        onInput={(event) => {
          const typed = event.currentTarget.value;
          setText(() => typed);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            send("queue");
          }
        }}
        onPaste={(event) => {
          const files = [...(event.clipboardData?.files ?? [])];
          if (files.some((file) => file.type.startsWith("image/"))) {
            event.preventDefault();
            draft.addFiles(files);
          }
        }}
        onDragOver={(event) => {
          if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
        }}
        onDrop={(event) => {
          const files = [...(event.dataTransfer?.files ?? [])];
          if (files.length > 0) {
            event.preventDefault();
            draft.addFiles(files);
          }
        }}
      />
      <div class="composer-actions">
        <ModelPicker
          catalog={props.catalog}
          current={picked ?? props.live?.model ?? props.sessionModel}
          onPick={(model) => {
            setPicked(model);
            client.switchModel(sessionId, model, { timeoutMs: CALL_BOUND_MS }).catch((error) => {
              setPicked(undefined);
              onError(error);
            });
          }}
        />
        <span class="spacer" />
        {running ? (
          <>
            <button type="button" data-testid="send-now" onClick={() => send("steer")}>
              Send now
            </button>
            <button type="button" data-testid="send-queue" onClick={() => send("queue")}>
              Queue
            </button>
            <button
              type="button"
              class="stop"
              data-testid="stop"
              onClick={() => {
                client.interrupt(sessionId, { timeoutMs: CALL_BOUND_MS }).catch(onError);
              }}
            >
              Stop
            </button>
          </>
        ) : (
          <button type="submit" data-testid="send">
            Send
          </button>
        )}
      </div>
    </form>
  );
}
