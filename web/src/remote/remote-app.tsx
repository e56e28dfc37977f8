/**
 * The app through a relay, loaded on demand (app.tsx): the pairing screen when the page was
 * opened with a pairing link, or after "Forget this sidecar"; else the chat through the relay
 * with the pairing this browser keeps.
 */
import { useCallback, useState } from "preact/hooks";
import { forgetPairing, keptPairing } from "./kept-pairing.js";
import { PairingScreen } from "./pairing-screen.js";
import { RemoteChat } from "./remote-chat.js";
import type { PairedSidecar } from "./remote-library.js";

export interface RemoteAppProps {
  /** The pairing link the page was opened with (already out of the address bar). */
  link: string | undefined;
}

export function RemoteApp(props: RemoteAppProps) {
  const [link, setLink] = useState(props.link);
  const [paired, setPaired] = useState<PairedSidecar | undefined>(() =>
    props.link === undefined ? keptPairing() : undefined,
  );
  const forget = useCallback(() => {
    forgetPairing();
    setPaired(undefined);
  }, []);
  if (paired === undefined) {
    return (
      <PairingScreen
        link={link}
        onPaired={(pairedNow) => {
          setLink(undefined);
          setPaired(pairedNow);
        }}
      />
    );
  }
  return <RemoteChat paired={paired} onForget={forget} />;
}
