/**
 * The page opened with a pairing link (`ocb pair`): which sidecar it pairs with, a name for this
 * device (what `ocb devices` will list), and "Pair this device". Pairing runs the Noise
 * handshake with the sidecar through the relay (the browser's own WebSocket), then keeps the
 * pairing in this browser (kept-pairing.ts) and hands it to the chat. Without a link (the
 * pairing was just forgotten) it says how to pair again.
 */
import { useMemo, useState } from "preact/hooks";
import { DEVICE_NAME_MAX, defaultDeviceName } from "./device-name.js";
import { keepPairing } from "./kept-pairing.js";
import { type PairingProblem, pairingProblemOf } from "./pairing-problem.js";
import {
  browserWebSocket,
  type PairedSidecar,
  type PairingOffer,
  pairDevice,
  parsePairingLink,
} from "./remote-library.js";

export function PairingScreen(props: {
  link: string | undefined;
  onPaired: (paired: PairedSidecar) => void;
}) {
  const { link, onPaired } = props;
  const parsed = useMemo((): { offer?: PairingOffer; problem?: PairingProblem } => {
    if (link === undefined) return {};
    try {
      return { offer: parsePairingLink(link) };
    } catch (error) {
      return { problem: pairingProblemOf(error) };
    }
  }, [link]);
  const [name, setName] = useState(() => defaultDeviceName(navigator.userAgent));
  const [pairing, setPairing] = useState(false);
  const [problem, setProblem] = useState<PairingProblem | undefined>(parsed.problem);
  const spent = problem?.todo === "new-link";

  const pair = async () => {
    const deviceName = name.trim();
    if (link === undefined || deviceName === "" || pairing || spent) return;
    setPairing(true);
    setProblem(undefined);
    try {
      const { paired, connection } = await pairDevice(link, {
        deviceName,
        WebSocket: browserWebSocket(),
      });
      // The chat makes its own connection (remoteTransport); this one only paired.
      connection.close();
      keepPairing(paired);
      onPaired(paired);
    } catch (error) {
      setProblem(pairingProblemOf(error));
      setPairing(false);
    }
  };

  return (
    <main class="token-page">
      <form
        class="token-form"
        data-testid="pairing-screen"
        onSubmit={(event) => {
          event.preventDefault();
          void pair();
        }}
      >
        <h1>Pair this device</h1>
        {parsed.offer === undefined ? (
          <p>
            This browser is not paired with a sidecar. To pair it, open a new link that{" "}
            <code>ocb pair</code> shows on the sidecar's machine.
          </p>
        ) : (
          <>
            <p>
              This link pairs this browser with the sidecar{" "}
              <code data-testid="pairing-sidecar">{parsed.offer.sidecarId}</code>, through the relay
              at <code>{new URL(parsed.offer.relays[0] ?? location.href).host}</code>. Everything
              between them is encrypted end to end.
            </p>
            <p class="muted">
              This browser then keeps its pairing (its key for that sidecar) in its storage for this
              site: pair only a device of your own.
            </p>
          </>
        )}
        {problem === undefined ? null : (
          <p class="problem" role="alert" data-testid="pairing-problem">
            {problem.what}{" "}
            {problem.todo === "new-link" ? (
              <>
                Ask for a new link with <code>ocb pair</code> on the sidecar's machine.
              </>
            ) : (
              "Try again."
            )}
          </p>
        )}
        {parsed.offer === undefined ? null : (
          <>
            <label for="device-name">This device's name</label>
            <input
              id="device-name"
              data-testid="device-name"
              type="text"
              maxLength={DEVICE_NAME_MAX}
              autocomplete="off"
              value={name}
              disabled={pairing}
              onInput={(event) => setName(event.currentTarget.value)}
            />
            <button
              type="submit"
              class="primary"
              data-testid="pair-device"
              disabled={pairing || spent || name.trim() === ""}
            >
              {pairing ? "Pairing…" : "Pair this device"}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
