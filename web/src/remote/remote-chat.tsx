/**
 * The chat through a relay, with the pairing this browser keeps: a `BridgeClient` whose `fetch`
 * and `WebSocket` are the remote transport's (the end-to-end encrypted tunnel to the sidecar,
 * made on first use and again after a drop). The client's token is a placeholder: the
 * sidecar's end of the tunnel sets the real one, which a device never holds.
 */
import { BridgeClient } from "opencode-bridge/client";
import { useCallback, useMemo, useRef } from "preact/hooks";
import type { ChatRemote } from "../chat.js";
import { ConnectedChat } from "../connected-chat.js";
import { RelayGone } from "./relay-gone.js";
import {
  browserWebSocket,
  type PairedSidecar,
  type RemoteTransport,
  remoteTransport,
} from "./remote-library.js";

/** Any 16 characters or more: the client asks for one; the sidecar's end replaces it. */
const SET_BY_THE_SIDECAR = "set-by-the-sidecar-end-of-the-tunnel";
const ignore = () => {};

export function RemoteChat(props: { paired: PairedSidecar; onForget: () => void }) {
  const { paired, onForget } = props;
  // The transport of the current try, for what the gone screen says.
  const transport = useRef<RemoteTransport | undefined>(undefined);
  const connect = useCallback(() => {
    const made = remoteTransport(paired, { WebSocket: browserWebSocket() });
    transport.current = made;
    const client = new BridgeClient({
      url: location.origin,
      token: SET_BY_THE_SIDECAR,
      fetch: made.fetch,
      WebSocket: made.WebSocket,
    });
    return {
      client,
      close: () => {
        client.close();
        made.close();
      },
    };
  }, [paired]);
  const remote = useMemo<ChatRemote>(
    () => ({ sidecarId: paired.sidecarId, relay: paired.relays[0] ?? "", onForget }),
    [paired, onForget],
  );
  return (
    <ConnectedChat
      connect={connect}
      // No token to be refused: a device the sidecar no longer knows is refused at the
      // handshake, and the chat then finds the sidecar gone (RelayGone says why).
      onError={ignore}
      gone={(retry) => (
        <RelayGone problem={transport.current?.lastProblem} onRetry={retry} onForget={onForget} />
      )}
      remote={remote}
    />
  );
}
