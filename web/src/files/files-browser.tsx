/**
 * The files panel's body (loaded on demand, files-drawer.tsx): the session directory, read
 * only, folder by folder, a file opened in place; breadcrumbs back up.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useCallback, useState } from "preact/hooks";
import { Breadcrumbs } from "./breadcrumbs.js";
import { DirectoryList } from "./directory-list.js";
import { FileView } from "./file-view.js";

export interface FilesBrowserProps {
  client: BridgeClient;
  sessionId: string;
  /** Where it opens: a directory, or a file (relative to the session directory, or absolute in it). */
  path: string;
  isFile: boolean;
}

export function FilesBrowser(props: FilesBrowserProps) {
  const { client, sessionId } = props;
  const [at, setAt] = useState({ path: props.path, isFile: props.isFile });
  // A file named by an absolute path shows its place once the sidecar has resolved it.
  const [shownPath, setShownPath] = useState(props.isFile ? "" : props.path);
  const open = useCallback((path: string, isFile: boolean) => {
    setAt({ path, isFile });
    if (!isFile) setShownPath(path);
  }, []);
  const onPlace = useCallback((relative: string) => setShownPath(relative), []);
  return (
    <div class="workbench-body files-browser">
      <Breadcrumbs path={shownPath} onOpen={(directory) => open(directory, false)} />
      {at.isFile ? (
        <FileView client={client} sessionId={sessionId} path={at.path} onPlace={onPlace} />
      ) : (
        <DirectoryList client={client} sessionId={sessionId} path={at.path} onOpen={open} />
      )}
    </div>
  );
}
