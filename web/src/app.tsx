/**
 * The app: the token first (from the URL's fragment, the tab's storage, or pasted), then the
 * chat on a `BridgeClient` of this page's own origin; where to go when that sidecar is gone.
 */
import { BridgeApiError, BridgeClient } from "opencode-bridge/client";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { Chat } from "./chat.js";
import { withEarlyRead } from "./early-read.js";
import { SidecarGone } from "./sidecar-gone.js";
import { useLookForReturn } from "./sidecar-reach.js";
import { forgetToken, saveToken, takeToken } from "./token.js";
import { TokenForm } from "./token-form.js";

export function App() {
  const [token, setToken] = useState(() => takeToken());
  const [refused, setRefused] = useState<string | undefined>(undefined);
  if (token === undefined) {
    return (
      <TokenForm
        problem={refused}
        onToken={(pasted) => {
          saveToken(pasted);
          setRefused(undefined);
          setToken(pasted);
        }}
      />
    );
  }
  return (
    <ClientChat
      token={token}
      onRefused={(why) => {
        forgetToken();
        setRefused(why);
        setToken(undefined);
      }}
    />
  );
}

function ClientChat(props: { token: string; onRefused: (why: string) => void }) {
  // A new client per try: "Try again" after the sidecar went starts from a clean socket.
  const [tries, setTries] = useState(0);
  const [gone, setGone] = useState(false);
  // `tries` is a dependency so that each try makes a new client.
  const client = useMemo(
    () =>
      new BridgeClient({
        url: location.origin,
        token: props.token,
        // The session's snapshot may have been asked for as the page started.
        fetch: withEarlyRead((input, init) => fetch(input, init)),
      }),
    [props.token, tries],
  );
  useEffect(() => () => client.close(), [client]);
  const { onRefused } = props;
  const onError = useCallback(
    (error: unknown) => {
      if (error instanceof BridgeApiError && error.status === 401) {
        // Most often a tab from before a restart: each start makes a new token.
        onRefused("The sidecar refused this page's token.");
      }
    },
    [onRefused],
  );
  const onGone = useCallback(() => setGone(true), []);
  const retry = useCallback(() => {
    setGone(false);
    setTries((count) => count + 1);
  }, []);
  useLookForReturn(client, gone, retry);
  if (gone) return <SidecarGone onRetry={retry} />;
  // Unmounted while gone: its polls and its session's socket stop.
  return <Chat client={client} onError={onError} onGone={onGone} />;
}
