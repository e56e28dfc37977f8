/**
 * The composer. Idle: Enter sends. While a turn runs: "Send now" steers the input into it,
 * "Queue" (and Enter) makes it the next turn, and Stop interrupts. Shift+Enter is a newline.
 * Images are pasted, dropped or picked; files are attached by path, or picked after an `@`.
 * A message that starts with a command's name (`/greet world`, listed after a `/`) runs that
 * command (`client.runCommand`) instead of being sent as text; the agent is picked beside the
 * model.
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
  SessionInfo,
} from "opencode-bridge/client";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { AgentPicker, useAgents } from "./agent-picker.js";
import { AttachmentTray } from "./attachment-tray.js";
import { CommandNote } from "./command-note.js";
import { useComposerPickers } from "./composer-pickers.js";
import { commandCall, looksLikeCommand } from "./composer-token.js";
import { attachmentsToSend, draftAttachments, nameOf } from "./draft-attachments.js";
import { useDraft } from "./draft-store.js";
import { ModelPicker } from "./model-picker.js";
import { useProjectCommands } from "./project-commands.js";
import { QueuedInputs } from "./queued-inputs.js";
import { rememberSentImage } from "./sent-images.js";
import { SuggestionList } from "./suggestion-list.js";

export interface ComposerProps {
  client: BridgeClient;
  sessionId: string;
  live: LiveConversation | undefined;
  catalog: ModelCatalog | undefined;
  /** The session's model as the sidecar last said (the live state's is newer when it has one). */
  sessionModel: ModelRef | undefined;
  /** The session's backend takes back a queued input (`capabilities.cancelQueued`). */
  canRemoveQueued: boolean;
  /** The session as the sidecar last listed it: its directory, agent and capabilities. */
  session?: SessionInfo | undefined;
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
  const [pickedAgent, setPickedAgent] = useState<string | undefined>(undefined);
  const [caret, setCaret] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  // Where the caret goes once a pick's text is in the box (and only into that text: a key
  // typed before it is drawn has moved on from it).
  const caretAfterPick = useRef<{ text: string; caret: number } | undefined>(undefined);
  const sends = useRef<Promise<void>>(Promise.resolve());
  const running = props.live?.running !== undefined;
  const directory = props.session?.directory;
  const capabilities = props.session?.capabilities;
  const commands = useProjectCommands(client, directory, capabilities?.commands === true);
  const agents = useAgents(client, directory, capabilities?.switchAgent === true, onError);
  const pickers = useComposerPickers({
    client,
    sessionId,
    commands,
    text,
    caret,
    write(next, at) {
      caretAfterPick.current = { text: next, caret: at };
      setText(() => next);
      setCaret(at);
    },
    attach: (path) => draft.addPath(path),
    findsFiles: props.session !== undefined,
  });
  // Before the next key can land (a layout effect runs as the text is drawn).
  useLayoutEffect(() => {
    const pending = caretAfterPick.current;
    if (pending === undefined || pending.text !== text || box.current === null) return;
    caretAfterPick.current = undefined;
    box.current.setSelectionRange(pending.caret, pending.caret);
  }, [text]);
  const trackCaret = (event: { currentTarget: HTMLTextAreaElement }) =>
    setCaret(event.currentTarget.selectionStart);

  useEffect(() => box.current?.focus(), []);
  // A pick shows until the session says which model it has (from here or another tab).
  const liveModel = props.live?.model;
  useEffect(() => setPicked(undefined), [liveModel]);
  const liveAgent = props.live?.agent;
  useEffect(() => setPickedAgent(undefined), [liveAgent]);

  const send = (delivery: "steer" | "queue") => {
    const message = text.trim();
    const { images, paths } = draft;
    if (message === "" && images.length === 0 && paths.length === 0) return;
    for (const image of images) rememberSentImage(message, nameOf(image), image.url);
    setText(() => "");
    draft.clear();
    onSent();
    sends.current = sends.current.then(async () => {
      let attachmentsBack = false;
      try {
        const call = looksLikeCommand(message)
          ? commandCall(message, new Set((await commands.load()).map((command) => command.name)))
          : undefined;
        if (call !== undefined) {
          // A command takes no attachments: they stay in the draft for the next message.
          draft.restore(images, paths);
          attachmentsBack = true;
          await client.runCommand(sessionId, { ...call, delivery }, { timeoutMs: SEND_BOUND_MS });
          return;
        }
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
        if (!attachmentsBack) draft.restore(images, paths);
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
      <div class="composer-box">
        {pickers.list === undefined ? null : <SuggestionList {...pickers.list} />}
        <textarea
          ref={box}
          data-testid="composer-input"
          aria-label="Message to the agent (/ lists commands, @ finds a file)"
          {...pickers.boxAria}
          placeholder={
            running
              ? "Steer (Send now) or queue (Enter) a message…"
              : "Message the agent (Enter sends; / commands, @ files)"
          }
          rows={3}
          value={text}
          onInput={(event) => {
            const typed = event.currentTarget.value;
            setText(() => typed);
            trackCaret(event);
          }}
          onKeyUp={trackCaret}
          onClick={trackCaret}
          onBlur={() => setCaret(-1)}
          onFocus={trackCaret}
          onKeyDown={(event) => {
            if (pickers.onKeyDown(event)) {
              event.preventDefault();
              event.stopPropagation();
              return;
            }
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
      </div>
      <CommandNote text={text} commands={commands.commands} />
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
        <AgentPicker
          agents={agents}
          current={pickedAgent ?? props.live?.agent ?? props.session?.agent}
          onPick={(agent) => {
            setPickedAgent(agent);
            client.switchAgent(sessionId, agent, { timeoutMs: CALL_BOUND_MS }).catch((error) => {
              setPickedAgent(undefined);
              onError(error);
            });
          }}
        />
        <span class="spacer" />
        {/* One group: on a phone the pickers wrap above it, the buttons never apart. */}
        <span class="composer-send">
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
        </span>
      </div>
    </form>
  );
}
