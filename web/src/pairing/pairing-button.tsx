/** The top bar's "Open on your phone" button and the pairing dialog it opens. */
import { useState } from "preact/hooks";
import type { OpenTarget } from "../open-session-url.js";
import { PairingDialog } from "./pairing-dialog.js";

export function PairingButton(props: { target: OpenTarget | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="pairing-open"
        data-testid="pairing-open"
        aria-haspopup="dialog"
        aria-label="Open on your phone"
        onClick={() => setOpen(true)}
      >
        {/* A narrower desktop keeps room for the session's title: the short label. */}
        <span class="pairing-open-long">Open on your phone</span>
        <span class="pairing-open-short" aria-hidden="true">
          Phone
        </span>
      </button>
      {open ? <PairingDialog target={props.target} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
