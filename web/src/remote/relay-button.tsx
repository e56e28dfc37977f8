/**
 * The side list's last button when the chat runs through a relay (on a phone, in the drawer,
 * which has room the top bar has not): a small dialog that says which sidecar this browser reaches and through which relay,
 * and offers "Forget this sidecar" (removes the pairing this browser keeps).
 */
import { useState } from "preact/hooks";
import type { ChatRemote } from "../chat.js";
import { ModalDialog } from "../dialog/modal-dialog.js";

export function RelayButton(props: { remote: ChatRemote }) {
  const [open, setOpen] = useState(false);
  const { remote } = props;
  return (
    <>
      <button
        type="button"
        class="relay-open"
        data-testid="relay-open"
        aria-haspopup="dialog"
        aria-label="Through a relay: this browser's pairing"
        onClick={() => setOpen(true)}
      >
        Through a relay…
      </button>
      {open ? (
        <ModalDialog title="Through a relay" testId="relay-dialog" onClose={() => setOpen(false)}>
          <p>
            This browser reaches the sidecar <code>{remote.sidecarId}</code> through the relay at{" "}
            <code>{hostOf(remote.relay)}</code>, encrypted end to end. It keeps its pairing (its key
            for that sidecar) in this browser.
          </p>
          <p class="muted">
            Forgetting removes it from this browser only; <code>ocb devices revoke</code> on the
            sidecar's machine removes it there.
          </p>
          <button type="button" data-testid="forget-sidecar" onClick={remote.onForget}>
            Forget this sidecar
          </button>
        </ModalDialog>
      ) : null}
    </>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
