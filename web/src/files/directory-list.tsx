/** One directory of the session's: its folders, then its files (client.listFiles). */
import type { BridgeClient } from "opencode-bridge/client";
import { useLoaded } from "./use-loaded.js";

export function DirectoryList(props: {
  client: BridgeClient;
  sessionId: string;
  path: string;
  onOpen: (path: string, isFile: boolean) => void;
}) {
  const { client, sessionId, path } = props;
  const listing = useLoaded(`${sessionId}\n${path}`, (signal) =>
    client.listFiles(sessionId, path, { signal }),
  );
  if (listing.kind === "loading")
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (listing.kind === "failed") {
    return (
      <p class="problem" role="alert">
        This folder could not be listed: {listing.message}
      </p>
    );
  }
  const { entries, truncated } = listing.value;
  if (entries.length === 0) return <p class="muted">This folder is empty.</p>;
  return (
    <>
      <ul class="file-list" data-testid="file-list">
        {entries.map((entry) => (
          <li key={entry.path}>
            {entry.type === "directory" || entry.type === "file" ? (
              <button
                type="button"
                class="file-entry"
                onClick={() => props.onOpen(entry.path, entry.type === "file")}
              >
                <span class="file-name">{entry.name}</span>
                {/* A folder as `ls -F` marks it: the slash seen, "folder" heard. */}
                {entry.type === "directory" ? (
                  <>
                    <span aria-hidden="true">/</span>
                    <span class="visually-hidden"> (folder)</span>
                  </>
                ) : null}
              </button>
            ) : (
              // A symlink is not followed here (it may lead out), nor is a device or a FIFO.
              <span class="file-entry muted">
                <span class="file-name">{entry.name}</span>{" "}
                {entry.type === "symlink" ? "(a link, not followed)" : "(not a file)"}
              </span>
            )}
          </li>
        ))}
      </ul>
      {truncated ? <p class="muted">More entries than shown: the first 1,000 are listed.</p> : null}
    </>
  );
}
