/**
 * The files of the session's directory that match the letters after an `@`
 * (`client.findFiles`): asked once the typing pauses, each ask bounded in time and the one
 * before it cancelled, so a slow answer never replaces a newer one.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./project-commands.js";

/** How long the typing pauses before the directory is searched. */
const DEBOUNCE_MS = 150;
const SEARCH_BOUND_MS = 8_000;
const SHOWN = 20;

export interface FileSearch {
  /** The query these answer (a list for older letters is not shown as the new one's). */
  query: string | undefined;
  files: string[];
  searching: boolean;
  problem: string | undefined;
}

const IDLE: FileSearch = { query: undefined, files: [], searching: false, problem: undefined };

/** The files matching `query` (undefined: no search, nothing shown). */
export function useFileSearch(
  client: BridgeClient,
  sessionId: string,
  query: string | undefined,
): FileSearch {
  const [found, setFound] = useState<FileSearch>(IDLE);
  useEffect(() => {
    if (query === undefined) {
      setFound(IDLE);
      return;
    }
    setFound((old) => ({ ...old, searching: true, problem: undefined }));
    const cancel = new AbortController();
    const timer = setTimeout(() => {
      client
        .findFiles(sessionId, query, {
          signal: cancel.signal,
          timeoutMs: SEARCH_BOUND_MS,
          limit: SHOWN * 2,
        })
        .then((answer) => {
          // Directories cannot be attached: only what a message can carry is offered.
          const files = answer.files
            .filter((entry) => entry.type === "file" || entry.type === "symlink")
            .slice(0, SHOWN)
            .map((entry) => entry.path);
          setFound({ query, files, searching: false, problem: undefined });
        })
        .catch((error: unknown) => {
          if (cancel.signal.aborted) return;
          setFound({
            query,
            files: [],
            searching: false,
            problem: `Could not search the files: ${messageOf(error)}`,
          });
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      cancel.abort();
    };
  }, [client, sessionId, query]);
  return found;
}
