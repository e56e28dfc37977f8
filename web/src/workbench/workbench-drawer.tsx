/** The open workbench panel of a session: the terminal or the files. */
import type { BridgeClient, SessionInfo } from "opencode-bridge/client";
import { FilesDrawer } from "../files/files-drawer.js";
import { TerminalDrawer } from "../terminal/terminal-drawer.js";
import type { WorkbenchPanel } from "./use-workbench.js";

export function WorkbenchDrawer(props: {
  client: BridgeClient;
  sessionId: string;
  panel: WorkbenchPanel | undefined;
  info: SessionInfo | undefined;
  onClose: () => void;
}) {
  const { client, sessionId, panel, info, onClose } = props;
  if (panel === undefined) return null;
  if (panel.kind === "terminal") {
    return (
      <TerminalDrawer
        client={client}
        sessionId={sessionId}
        supported={info?.capabilities?.terminal}
        backend={info?.backend}
        onClose={onClose}
      />
    );
  }
  return (
    <FilesDrawer
      client={client}
      sessionId={sessionId}
      path={panel.path}
      isFile={panel.isFile}
      onClose={onClose}
    />
  );
}
