/**
 * Above the composer of a session whose OpenCode session is gone (deleted, or kept by a server
 * whose data this one has not: a sidecar started again with fresh OpenCode data): a send is
 * refused (409) until the session is continued in a new OpenCode session. Says so, and what
 * the new one knows, and continues it on a click (`POST /v1/sessions/:id/continue`): the text
 * the composer gave back can then be sent again.
 */
import { BridgeApiError } from "opencode-bridge/client";
import { useState } from "preact/hooks";

/** A send refused because the session's OpenCode session no longer exists. */
export function isLostUpstream(error: unknown): boolean {
  // The sidecar's 409 names the way out (the continue route); other 409s (busy) do not.
  return (
    error instanceof BridgeApiError &&
    error.status === 409 &&
    /no longer exists/.test(error.message) &&
    /\/continue\b/.test(error.message)
  );
}

export function ContinueOffer(props: { onContinue: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <section class="continue-offer" data-testid="continue-offer" role="alert">
      <p>
        This session's OpenCode session no longer exists, so it cannot take a message as it is.
        Continue it in a new one: the model is given the conversation so far as text (not the old
        session's tool results or the files it read). Your message is kept below.
      </p>
      <div class="composer-actions">
        <button
          type="button"
          class="primary"
          data-testid="continue-session"
          disabled={busy}
          aria-busy={busy}
          onClick={() => {
            setBusy(true);
            void props.onContinue().finally(() => setBusy(false));
          }}
        >
          {busy ? "Continuing…" : "Continue in a new OpenCode session"}
        </button>
      </div>
    </section>
  );
}
