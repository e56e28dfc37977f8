/**
 * The working tree of the session's directory against its last commit (`client.vcs`): what
 * a commit would take now, the user's own edits and every turn's together, unlike the
 * session's changes above it.
 */
import type { VcsStatusView } from "opencode-bridge/client";

export function WorkingTree(props: { vcs: VcsStatusView | string | undefined }) {
  const { vcs } = props;
  return (
    <section class="working-tree" data-testid="working-tree" aria-label="Working tree">
      <h3>
        Working tree
        {typeof vcs === "object" && vcs.branch !== undefined ? (
          <span class="muted"> · branch {vcs.branch}</span>
        ) : null}
      </h3>
      {vcs === undefined ? (
        <p class="muted">Loading…</p>
      ) : typeof vcs === "string" ? (
        <p class="muted">Its status could not be read: {vcs}</p>
      ) : vcs.files.length === 0 ? (
        <p class="muted">
          {vcs.branch === undefined
            ? "Nothing to show: not a git repository, or nothing differs from the last commit."
            : "Nothing uncommitted."}
        </p>
      ) : (
        <ul class="working-tree-files">
          {vcs.files.map((file) => (
            <li key={file.path} data-testid="working-tree-file">
              <span class={`file-status ${file.status}`}>{file.status}</span>
              <span class="changed-file-path" data-testid="working-tree-path">
                {file.path}
              </span>
              <span class="changed-file-counts">
                <span class="diff-count add">+{file.additions}</span>{" "}
                <span class="diff-count del">−{file.deletions}</span>
              </span>
            </li>
          ))}
          {vcs.moreFiles === undefined || vcs.moreFiles === 0 ? null : (
            <li class="muted">and {vcs.moreFiles} more</li>
          )}
        </ul>
      )}
    </section>
  );
}
