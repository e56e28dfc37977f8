/**
 * Shown instead of the chat when the sidecar does not answer through its relay: why (the last
 * connection's problem), "Try again", and, when the sidecar refused this browser (revoked, or
 * its pairing is gone), the way out: forget the pairing, then pair again with a new link.
 */
import type { RemoteAccessError } from "./remote-library.js";

export function RelayGone(props: {
  problem: RemoteAccessError | undefined;
  onRetry: () => void;
  onForget: () => void;
}) {
  const refused = props.problem?.reason === "refused";
  return (
    <main class="token-page">
      <section class="token-form" data-testid="relay-gone" role="alert">
        <h1>{refused ? "The sidecar refused this browser" : "The sidecar does not answer"}</h1>
        {refused ? (
          <p>
            This browser's pairing was revoked (<code>ocb devices revoke</code>) or is no longer
            known. Forget it, then pair again with a new link from <code>ocb pair</code>.
          </p>
        ) : (
          <p>
            This browser reaches its sidecar through a relay, and none of it answers now: the
            sidecar (<code>ocb serve --relay</code>) or the relay may be stopped. The page looks
            again for a while.
          </p>
        )}
        {props.problem === undefined ? null : <p class="muted">{props.problem.message}</p>}
        <button type="button" data-testid="sidecar-retry" onClick={props.onRetry}>
          Try again
        </button>
        <button
          type="button"
          class={refused ? "primary" : undefined}
          data-testid="forget-sidecar"
          onClick={props.onForget}
        >
          Forget this sidecar
        </button>
      </section>
    </main>
  );
}
