/**
 * The terminal itself (loaded on demand with xterm.js, terminal-drawer.tsx): xterm.js on the
 * session's shell (TerminalLink), fitted to its box and resized with it, a status line that
 * says when the connection is lost and retried, when the shell ended, or when another tab took
 * it. The shell's output is drawn by xterm as cells of text, never as HTML; the title a program
 * sets (OSC 0/2) is not listened to, so it reaches neither the page's title nor its markup.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import type { BridgeClient } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { terminalKeys } from "./terminal-keys.js";
import { type LinkState, TerminalLink } from "./terminal-link.js";
import { followPageTheme } from "./terminal-theme.js";

export interface TerminalViewProps {
  client: BridgeClient;
  sessionId: string;
  /** Shift+Escape: the focus leaves the terminal. */
  onLeave: () => void;
}

export function TerminalView(props: TerminalViewProps) {
  const { client, sessionId } = props;
  const host = useRef<HTMLDivElement>(null);
  const link = useRef<TerminalLink | undefined>(undefined);
  const leave = useRef(props.onLeave);
  leave.current = props.onLeave;
  const [state, setState] = useState<LinkState>({ kind: "connecting" });
  useEffect(() => {
    const box = host.current;
    if (box === null) return;
    const terminal = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
      fontSize: 14,
      cursorBlink: true,
      scrollback: 5000,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(box);
    fit.fit();
    const unfollowTheme = followPageTheme(terminal);
    terminal.attachCustomKeyEventHandler(terminalKeys(terminal, () => leave.current()));
    const shell = new TerminalLink(client, sessionId, {
      output: (data) => terminal.write(data),
      state: setState,
      size: () => ({ cols: terminal.cols, rows: terminal.rows }),
    });
    link.current = shell;
    const typed = terminal.onData((data) => shell.write(data));
    const resized = terminal.onResize(({ cols, rows }) => shell.resize(cols, rows));
    // The panel's size follows the window (and a phone's keyboard): the cells follow it.
    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(box);
    shell.connect();
    terminal.focus();
    return () => {
      observer.disconnect();
      unfollowTheme();
      typed.dispose();
      resized.dispose();
      shell.leave();
      terminal.dispose();
      link.current = undefined;
    };
  }, [client, sessionId]);
  return (
    <div class="terminal-view">
      <TerminalStatus
        state={state}
        onNewShell={() => link.current?.newShell()}
        onTakeBack={() => link.current?.connect()}
      />
      <div class="terminal-screen" ref={host} data-testid="terminal-screen" />
      <p class="terminal-hint muted">
        Shift+Esc leaves the terminal · Ctrl+Shift+C / V copy and paste
      </p>
    </div>
  );
}

function TerminalStatus(props: {
  state: LinkState;
  onNewShell: () => void;
  onTakeBack: () => void;
}) {
  const { state } = props;
  switch (state.kind) {
    case "connecting":
      return (
        <p class="terminal-status muted" role="status" data-testid="terminal-status">
          Connecting…
        </p>
      );
    case "open":
      return (
        <p class="terminal-status muted" role="status" data-testid="terminal-status">
          {state.reattached ? "Connected (the same shell as before)" : "Connected"}
        </p>
      );
    case "lost":
      return (
        <p class="terminal-status problem" role="status" data-testid="terminal-status">
          Connection lost ({state.message}); trying again in {Math.round(state.retryInMs / 1000)} s…
        </p>
      );
    case "ended":
      return (
        <p class="terminal-status problem" role="status" data-testid="terminal-status">
          The shell ended: {state.message}{" "}
          <button type="button" onClick={props.onNewShell}>
            New shell
          </button>
        </p>
      );
    case "replaced":
      return (
        <p class="terminal-status problem" role="status" data-testid="terminal-status">
          This shell was opened in another tab.{" "}
          <button type="button" onClick={props.onTakeBack}>
            Take it back
          </button>
        </p>
      );
  }
}
