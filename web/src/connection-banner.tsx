/**
 * "Reconnecting…": shown while the page's socket to the sidecar is down (the client retries by
 * itself and resumes each session after its last seq), or while the open session's own
 * streams from its OpenCode server are (`connection.changed`, with why). Absent otherwise, and
 * for a session whose directory is gone (the chat says that instead).
 */
import type { BridgeClient, ClientConnectionState, LiveConversation } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";

export function useClientConnection(client: BridgeClient): ClientConnectionState {
  const [state, setState] = useState(client.connection.state);
  useEffect(() => {
    setState(client.connection.state);
    return client.connection.onChange(setState);
  }, [client]);
  return state;
}

export function ConnectionBanner(props: {
  socket: ClientConnectionState;
  live: LiveConversation | undefined;
}) {
  const { socket, live } = props;
  const message =
    socket.state === "reconnecting"
      ? `Connection to the sidecar lost; reconnecting (attempt ${socket.attempt})…`
      : live?.connection.state === "reconnecting"
        ? `This session's stream from OpenCode broke${because(live.connection.reason)}; the sidecar is reconnecting (attempt ${live.connection.attempt})…`
        : undefined;
  if (message === undefined) return null;
  return (
    <div class="connection-banner" data-testid="connection-banner" role="status">
      {message}
    </div>
  );
}

function because(reason: string | undefined): string {
  return reason === undefined || reason === "" ? "" : ` (${reason})`;
}
