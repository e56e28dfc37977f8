/**
 * The composer's drafts, one per session: what was typed and attached in a session is there
 * again when the session is opened again, until it is sent.
 *
 * Kept in memory, for as long as the page lives, not in sessionStorage: an image of a draft is
 * a `File` with an object URL for its preview, which a string store could only keep by copying
 * its bytes (into a quota of a few MB) and which a reload would not bring back anyway. A
 * reload starts with empty drafts, as it starts with no previews.
 */
import { useCallback, useEffect, useState } from "preact/hooks";

export interface DraftImage {
  id: number;
  file: File;
  /** An object URL of the file, for its preview (and the sent message's). */
  url: string;
}

/** What the composer of one session holds. */
export interface Draft {
  readonly text: string;
  readonly images: readonly DraftImage[];
  readonly paths: readonly string[];
}

export const EMPTY_DRAFT: Draft = { text: "", images: [], paths: [] };

/** The drafts of the page's sessions, and who shows them. */
class DraftStore {
  readonly #drafts = new Map<string, Draft>();
  readonly #watchers = new Set<(sessionId: string) => void>();

  get(sessionId: string): Draft {
    return this.#drafts.get(sessionId) ?? EMPTY_DRAFT;
  }

  /** Changes a session's draft, mounted or not (a failed send gives its text back to it). */
  change(sessionId: string, change: (old: Draft) => Draft): void {
    const next = change(this.get(sessionId));
    const empty = next.text === "" && next.images.length === 0 && next.paths.length === 0;
    if (empty) this.#drafts.delete(sessionId);
    else this.#drafts.set(sessionId, next);
    for (const watcher of this.#watchers) watcher(sessionId);
  }

  watch(watcher: (sessionId: string) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }
}

const drafts = new DraftStore();

/** The draft of `sessionId`, and how to change it. */
export function useDraft(sessionId: string): [Draft, (change: (old: Draft) => Draft) => void] {
  const [draft, setDraft] = useState(() => drafts.get(sessionId));
  useEffect(() => {
    setDraft(drafts.get(sessionId));
    return drafts.watch((changed) => {
      if (changed === sessionId) setDraft(drafts.get(sessionId));
    });
  }, [sessionId]);
  const change = useCallback(
    (update: (old: Draft) => Draft) => drafts.change(sessionId, update),
    [sessionId],
  );
  return [draft, change];
}
