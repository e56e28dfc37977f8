/**
 * One file of the session's, read only: its text with line numbers beside it, highlighted in
 * its language (file-lines.tsx: a file is untrusted, only highlight.js's checked output is drawn
 * as HTML); a binary file or one past the sidecar's 1 MiB said plainly. `onPlace` tells the
 * panel where the file lies, for the breadcrumbs.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useEffect } from "preact/hooks";
import { FileLines } from "./file-lines.js";
import { useLoaded } from "./use-loaded.js";

export function FileView(props: {
  client: BridgeClient;
  sessionId: string;
  path: string;
  onPlace: (relativePath: string) => void;
}) {
  const { client, sessionId, path, onPlace } = props;
  const file = useLoaded(`${sessionId}\n${path}`, (signal) =>
    client.readFile(sessionId, path, { signal }),
  );
  const place = file.kind === "loaded" ? file.value.path : undefined;
  useEffect(() => {
    if (place !== undefined) onPlace(place);
  }, [place, onPlace]);
  if (file.kind === "loading")
    return (
      <p class="muted" role="status">
        Loading…
      </p>
    );
  if (file.kind === "failed") {
    return (
      <p class="problem" role="alert">
        This file could not be read: {file.message}
      </p>
    );
  }
  const { binary, content, truncated, size } = file.value;
  if (binary || content === undefined) {
    return (
      <p class="muted" data-testid="file-binary">
        A binary file ({size.toLocaleString()} bytes): not shown as text.
      </p>
    );
  }
  return (
    <>
      {truncated ? (
        <p class="problem" data-testid="file-truncated">
          A large file ({size.toLocaleString()} bytes): only its first 1 MiB is shown.
        </p>
      ) : null}
      {/* A scroller: Chromium lets the keyboard focus it, to scroll a long line sideways. */}
      <section
        class="file-text"
        data-testid="file-text"
        aria-label={`The text of ${file.value.path}`}
      >
        <FileLines path={file.value.path} content={content} />
      </section>
    </>
  );
}
