/**
 * In place of the composer, for a session whose directory is gone from the sidecar's machine
 * (removed since it was made): it can be read, not continued, so there is nothing to type into.
 * Says why, and offers what can be done: a new session in the default directory.
 */
export function DirectoryGone(props: {
  directory: string;
  /** A new session is being created (the button waits). */
  creating: boolean;
  onContinue: () => void;
}) {
  return (
    <section class="composer composer-closed" data-testid="composer-closed">
      <p data-testid="composer-closed-reason">
        This session's directory <code>{props.directory}</code> no longer exists, so it cannot take
        new turns. Its conversation stays here to read.
      </p>
      <div class="composer-actions">
        <button
          type="button"
          data-testid="continue-new-session"
          disabled={props.creating}
          aria-busy={props.creating}
          onClick={props.onContinue}
        >
          {props.creating ? "Creating session…" : "Continue in a new session"}
        </button>
      </div>
    </section>
  );
}
