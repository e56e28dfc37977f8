/**
 * The app: the token first (from the URL's fragment, the tab's storage, or pasted), then the
 * chat on a `BridgeClient` of this page's own origin.
 */
import { BridgeApiError, BridgeClient } from "opencode-bridge/client";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { Chat } from "./chat.js";
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
  const client = useMemo(
    () => new BridgeClient({ url: location.origin, token: props.token }),
    [props.token],
  );
  useEffect(() => () => client.close(), [client]);
  const { onRefused } = props;
  const onError = useCallback(
    (error: unknown) => {
      if (error instanceof BridgeApiError && error.status === 401) {
        onRefused("The sidecar refused that token.");
      }
    },
    [onRefused],
  );
  return <Chat client={client} onError={onError} />;
}
