/**
 * The app. Opened with a pairing link (`ocb pair`, on a page a relay serves), or with a pairing
 * this browser keeps and no token: the app through the relay (remote/remote-app.tsx). Else the
 * token first (from the URL's fragment, the tab's storage, or pasted), then the chat on a
 * `BridgeClient` of this page's own origin, and where to go when that sidecar is gone.
 */
import { BridgeApiError, BridgeClient } from "opencode-bridge/client";
import { useCallback, useState } from "preact/hooks";
import { ConnectedChat } from "./connected-chat.js";
import { withEarlyRead } from "./early-read.js";
import type { RemoteAppProps } from "./remote/remote-app.js";
import { hasKeptPairing, takePairingLink } from "./remote/remote-start.js";
import { SidecarGone } from "./sidecar-gone.js";
import { forgetToken, saveToken, takeToken } from "./token.js";
import { TokenForm } from "./token-form.js";
import { useLazy } from "./workbench/use-lazy.js";

export function App() {
  // First: the link's secret leaves the address bar before anything else is drawn.
  const [link] = useState(() => takePairingLink());
  const [token, setToken] = useState(() => takeToken());
  const [refused, setRefused] = useState<string | undefined>(undefined);
  // Decided once: a pairing link, or a kept pairing and no token (which keeps direct mode first).
  const [remote] = useState(() => link !== undefined || (token === undefined && hasKeptPairing()));
  if (remote) return <LazyRemoteApp link={link} />;
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
    <DirectChat
      token={token}
      onRefused={(why) => {
        forgetToken();
        setRefused(why);
        setToken(undefined);
      }}
    />
  );
}

/** The chat on the sidecar that served this page, with its token. */
function DirectChat(props: { token: string; onRefused: (why: string) => void }) {
  const { token, onRefused } = props;
  const connect = useCallback(() => {
    const client = new BridgeClient({
      url: location.origin,
      token,
      // The session's snapshot may have been asked for as the page started.
      fetch: withEarlyRead((input, init) => fetch(input, init)),
    });
    return { client, close: () => client.close() };
  }, [token]);
  const onError = useCallback(
    (error: unknown) => {
      if (error instanceof BridgeApiError && error.status === 401) {
        // Most often a tab from before a restart: each start makes a new token.
        onRefused("The sidecar refused this page's token.");
      }
    },
    [onRefused],
  );
  return (
    <ConnectedChat
      connect={connect}
      onError={onError}
      gone={(retry) => <SidecarGone onRetry={retry} />}
    />
  );
}

/** The remote pieces load only when the page runs through a relay (remote/remote-start.ts). */
function LazyRemoteApp(props: RemoteAppProps) {
  const app = useLazy<RemoteAppProps>(() =>
    import("./remote/remote-app.js").then((module) => module.RemoteApp),
  );
  if (app.kind === "loaded") return <app.Component {...props} />;
  return (
    <main class="token-page">
      <p class={app.kind === "failed" ? "problem" : "muted"} role="status">
        {app.kind === "failed"
          ? `The page could not load its relay part: ${app.message}`
          : "Loading…"}
      </p>
    </main>
  );
}
