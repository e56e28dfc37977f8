/**
 * The chat on a client made by `connect`: directly to the page's own sidecar (app.tsx), or
 * through a relay (remote/remote-chat.tsx). A new client per try: "Try again" after the sidecar
 * went starts from a clean socket; while it is gone the chat is unmounted (its polls and its
 * session's socket stop) and the page looks for its return (sidecar-reach.ts).
 */
import type { BridgeClient } from "opencode-bridge/client";
import type { JSX } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { Chat, type ChatRemote } from "./chat.js";
import { useLookForReturn } from "./sidecar-reach.js";

/** A client, and what closes it with whatever it runs on. */
export interface ChatConnection {
  client: BridgeClient;
  close(): void;
}

export function ConnectedChat(props: {
  /** Stable (a callback or a memo): a new one makes a new client. */
  connect: () => ChatConnection;
  onError: (error: unknown) => void;
  /** What to show while the sidecar does not answer. */
  gone: (retry: () => void) => JSX.Element;
  remote?: ChatRemote;
}) {
  const [tries, setTries] = useState(0);
  const [gone, setGone] = useState(false);
  const { connect } = props;
  // `tries` is a dependency so that each try makes a new client.
  const connection = useMemo(() => connect(), [connect, tries]);
  useEffect(() => () => connection.close(), [connection]);
  const onGone = useCallback(() => setGone(true), []);
  const retry = useCallback(() => {
    setGone(false);
    setTries((count) => count + 1);
  }, []);
  useLookForReturn(connection.client, gone, retry);
  if (gone) return props.gone(retry);
  return (
    <Chat
      client={connection.client}
      onError={props.onError}
      onGone={onGone}
      {...(props.remote === undefined ? {} : { remote: props.remote })}
    />
  );
}
