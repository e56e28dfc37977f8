/**
 * Shown instead of the chat when the sidecar this page came from no longer answers (the
 * session list's polls reach nothing): it was stopped, and a new start listens on another
 * port with another token, where this page cannot follow. Says where to go; looks for it at
 * this address for a while (sidecar-reach.ts), and on demand.
 */
export function SidecarGone(props: { onRetry: () => void }) {
  return (
    <main class="token-page">
      <section class="token-form" data-testid="sidecar-gone" role="alert">
        <h1>The sidecar stopped answering</h1>
        <p>
          Nothing answers at <code>{location.origin}</code> any more: the <code>ocb serve</code> (or{" "}
          <code>npm start</code>) this page came from has stopped.
        </p>
        <p>
          If you started it again, open the new link it printed (<code>chat: http://…</code>): each
          start listens on a new port with a new token, which this page cannot follow.
        </p>
        <button type="button" data-testid="sidecar-retry" onClick={props.onRetry}>
          Try again here
        </button>
      </section>
    </main>
  );
}
