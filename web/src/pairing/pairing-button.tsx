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
        onClick={() => setOpen(true)}
      >
        Open on your phone
      </button>
      {open ? <PairingDialog target={props.target} onClose={() => setOpen(false)} /> : null}
    </>
  );
}
