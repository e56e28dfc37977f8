/**
 * The terminal panel: its frame at once, its terminal (xterm.js, the largest piece of the
 * chat) loaded on demand the first time it opens. A backend without terminals (the session's
 * `capabilities.terminal`) is said plainly instead.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useRef } from "preact/hooks";
import { LoadingBody, PanelFrame } from "../workbench/panel-frame.js";
import { useLazy } from "../workbench/use-lazy.js";
import type { TerminalViewProps } from "./terminal-view.js";

export function TerminalDrawer(props: {
  client: BridgeClient;
  sessionId: string;
  /** The session's `capabilities.terminal`; undefined while its info is not known. */
  supported: boolean | undefined;
  backend: string | undefined;
  onClose: () => void;
}) {
  const close = useRef<HTMLButtonElement>(null);
  const view = useLazy<TerminalViewProps>(() =>
    import("./terminal-view.js").then((module) => module.TerminalView),
  );
  return (
    <PanelFrame
      title="Terminal"
      testId="terminal-panel"
      closeLabel="Close the terminal (the shell is kept)"
      closeOnEscape={false}
      closeRef={close}
      onClose={props.onClose}
    >
      {props.supported === false ? (
        <p class="problem workbench-body" role="status">
          This session's backend{props.backend === undefined ? "" : ` (${props.backend})`} has no
          terminal: run commands through the agent, or start the sidecar with the serve backend.
        </p>
      ) : view.kind === "loaded" ? (
        <view.Component
          client={props.client}
          sessionId={props.sessionId}
          onLeave={() => close.current?.focus()}
        />
      ) : (
        <LoadingBody failed={view.kind === "failed" ? view.message : undefined} what="terminal" />
      )}
    </PanelFrame>
  );
}
