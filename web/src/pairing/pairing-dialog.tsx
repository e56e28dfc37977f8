/**
 * "Open on your phone": a QR code of the address that opens this session on another device
 * (pairing-url.ts). The code is a key (whoever scans it drives the agent), so it stays hidden
 * until asked for; and a sidecar on loopback is out of a phone's reach, which the dialog says
 * (with what to do) while still showing the code, for a tunnel or a forwarded port.
 */
import { useState } from "preact/hooks";
import { ModalDialog } from "../dialog/modal-dialog.js";
import type { OpenTarget } from "../open-session-url.js";
import { keptToken } from "../token.js";
import { isLoopbackHost, pairingUrl } from "./pairing-url.js";
import { QrCanvas } from "./qr-canvas.js";

export function PairingDialog(props: { target: OpenTarget | undefined; onClose: () => void }) {
  const [shown, setShown] = useState(false);
  const token = keptToken();
  const loopback = isLoopbackHost(location.hostname);
  return (
    <ModalDialog title="Open on your phone" testId="pairing-dialog" onClose={props.onClose}>
      <p>
        Scan the code with your phone's camera to open{" "}
        {props.target === undefined ? "the chat" : "this session"} there.
      </p>
      <p class="pairing-key" role="note">
        <strong>The code is a key.</strong> It holds this sidecar's access token: whoever scans it
        can drive the agent. Show it only to your own device.
      </p>
      {loopback ? (
        <p class="pairing-loopback" data-testid="pairing-loopback" role="note">
          This sidecar listens on <code>{location.hostname}</code>, which only this computer
          reaches: a phone cannot open the address yet. Start it on an address your phone reaches,
          with a token of your own: <code>OCB_TOKEN=… ocb serve --host 0.0.0.0</code> (plain http: a
          network you trust, or <code>--tls-cert</code>), then open the chat there.
        </p>
      ) : null}
      {token === undefined ? (
        <p>This tab holds no token to share.</p>
      ) : (
        <div class="pairing-code">
          {shown ? (
            <QrCanvas
              text={pairingUrl(location, token, props.target)}
              label="QR code of this session's address, with the access token"
            />
          ) : null}
          {/* One button that stays: the keyboard keeps its place when the code shows or hides. */}
          <button
            type="button"
            class={shown ? undefined : "primary"}
            data-testid="pairing-show"
            aria-expanded={shown}
            onClick={() => setShown(!shown)}
          >
            {shown ? "Hide code" : "Show code"}
          </button>
        </div>
      )}
    </ModalDialog>
  );
}
