/**
 * The side list's data: the projects (`GET /v1/projects`) and, for each project unfolded, the
 * first pages of its sessions, newest first (`GET /v1/sessions?directory=&limit=&order=`): a
 * store may keep thousands of sessions, which the unpaged list would read and describe on
 * every poll. "Show more" asks for one more page of that project.
 *
 * Kept fresh by polling (the sidecar has no stream of session changes): each poll reads the
 * projects and, per unfolded project, as many of its newest sessions as are shown, so a new
 * session appears at the top and the badges of every shown one follow within a poll. The open
 * session, when no shown page holds it (opened by a link, or from an older page folded away),
 * is read on its own so that the chat always knows it.
 *
 * The poll is also the page's pulse: when that many polls in a row find nothing answering at
 * the page's origin, the sidecar is taken for gone (stopped, or started again on another port
 * with another token, which this page cannot follow) and the polling stops.
 */
import type { BridgeClient, Project, SessionInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { unanswered } from "../sidecar-reach.js";
import { orderedProjects } from "./project-order.js";

const POLL_MS = 2000;
const CALL_BOUND_MS = 10_000;
/** Polls in a row that reach nothing before the sidecar is taken for gone (about 15 s). */
const UNANSWERED_POLLS = 8;
/** Sessions per page of a project. */
export const PAGE_SIZE = 20;
/** Projects unfolded at first (the others wait for a click: each unfolded one is polled). */
const UNFOLDED_AT_FIRST = 6;
/** The most sessions a page may ask for (the API's bound). */
const MOST_SHOWN = 1000;

export interface ProjectGroup {
  project: Project;
  /** Unfolded: its sessions are loaded and polled. */
  unfolded: boolean;
  /** Its loaded sessions, newest first by creation; undefined before the first page. */
  sessions: SessionInfo[] | undefined;
  /** The sidecar has older sessions of it than those loaded. */
  more: boolean;
}

export interface SessionGroups {
  /** The projects, in the list's order; undefined before the first answer. */
  groups: ProjectGroup[] | undefined;
  /** What the sidecar last said of `sessionId` (a loaded page's entry, or the open one's). */
  find(sessionId: string | undefined): SessionInfo | undefined;
  /** Folds a project's sessions away, or unfolds them (and loads them). */
  toggle(directory: string): void;
  /** Loads one more page of a project's sessions. */
  showMore(directory: string): void;
  /** Unfolds a project (where a session was just made), leaving it as it is when unfolded. */
  reveal(directory: string): void;
  /** Polls now (after a change made from this page). */
  refresh(): Promise<void>;
  /** Nothing has answered the last polls: the polling stopped (see above). */
  gone: boolean;
}

interface Loaded {
  projects: Project[] | undefined;
  pages: ReadonlyMap<string, { sessions: SessionInfo[]; more: boolean }>;
  open: SessionInfo | undefined;
}

export function useSessionGroups(
  client: BridgeClient,
  openId: string | undefined,
  onError: (error: unknown) => void,
): SessionGroups {
  const [loaded, setLoaded] = useState<Loaded>({
    projects: undefined,
    pages: new Map(),
    open: undefined,
  });
  /** How many sessions each project shows (absent: folded). */
  const [shown, setShown] = useState<ReadonlyMap<string, number> | undefined>(undefined);
  const [gone, setGone] = useState(false);
  // Read through refs: a new handler, a click or another open session must not restart the loop.
  const report = useRef(onError);
  report.current = onError;
  const wanted = useRef({ shown, openId });
  wanted.current = { shown, openId };
  const wake = useRef<() => void>(() => {});

  /** One poll; whether the sidecar answered (anything, an error included). */
  const load = useCallback(
    async (signal?: AbortSignal): Promise<boolean> => {
      const options = { timeoutMs: CALL_BOUND_MS, ...(signal === undefined ? {} : { signal }) };
      try {
        const projects = orderedProjects(await client.projects(options));
        const unfolded =
          wanted.current.shown ??
          new Map(projects.slice(0, UNFOLDED_AT_FIRST).map((p) => [p.directory, PAGE_SIZE]));
        if (wanted.current.shown === undefined) setShown(unfolded);
        const pages = new Map<string, { sessions: SessionInfo[]; more: boolean }>();
        await Promise.all(
          [...unfolded].map(async ([directory, limit]) => {
            const page = await client.sessionPage({ directory, limit, order: "newest" }, options);
            pages.set(directory, { sessions: page.sessions, more: page.nextCursor !== undefined });
          }),
        );
        const { openId } = wanted.current;
        const listed = [...pages.values()].some((page) =>
          page.sessions.some((session) => session.id === openId),
        );
        // A session the sidecar cannot give (a stale link) must not stop the list: the
        // conversation says what is wrong with it.
        const open =
          openId === undefined || listed
            ? undefined
            : await client.getSession(openId, options).catch((error: unknown) => {
                if (unanswered(error)) throw error;
                return undefined;
              });
        const fresh: Loaded = { projects, pages, open };
        // Most polls change nothing: keep the old state then, so nothing is drawn again.
        setLoaded((old) => (sameJson(old, fresh) ? old : fresh));
        return true;
      } catch (error) {
        if (signal?.aborted !== true) report.current(error);
        return !unanswered(error);
      }
    },
    [client],
  );

  useEffect(() => {
    const abort = new AbortController();
    setGone(false);
    // One poll at a time: the next starts a while after the last one answered (or at a wake).
    void (async () => {
      let missed = 0;
      while (!abort.signal.aborted) {
        missed = (await load(abort.signal)) ? 0 : missed + 1;
        if (missed >= UNANSWERED_POLLS) {
          setGone(true);
          return;
        }
        await pause(POLL_MS, abort.signal, wake);
      }
    })();
    return () => abort.abort();
  }, [load]);

  // A fold, a "show more" or another open session: poll at once rather than at the next tick.
  useEffect(() => wake.current(), [shown, openId]);

  const refresh = useCallback(async () => {
    await load();
  }, [load]);
  const groups = loaded.projects?.map((project): ProjectGroup => {
    const page = loaded.pages.get(project.directory);
    const unfolded = shown?.has(project.directory) === true;
    return {
      project,
      unfolded,
      sessions: unfolded ? page?.sessions : undefined,
      more: unfolded && page?.more === true,
    };
  });
  return {
    groups,
    find(sessionId) {
      if (sessionId === undefined) return undefined;
      for (const page of loaded.pages.values()) {
        const found = page.sessions.find((session) => session.id === sessionId);
        if (found !== undefined) return found;
      }
      return loaded.open?.id === sessionId ? loaded.open : undefined;
    },
    toggle(directory) {
      setShown((old) => {
        const next = new Map(old);
        if (next.has(directory)) next.delete(directory);
        else next.set(directory, PAGE_SIZE);
        return next;
      });
    },
    showMore(directory) {
      setShown((old) =>
        new Map(old).set(directory, Math.min(MOST_SHOWN, (old?.get(directory) ?? 0) + PAGE_SIZE)),
      );
    },
    reveal(directory) {
      setShown((old) => (old?.has(directory) ? old : new Map(old).set(directory, PAGE_SIZE)));
    },
    refresh,
    gone,
  };
}

function sameJson(a: Loaded, b: Loaded): boolean {
  const plain = (value: Loaded) =>
    JSON.stringify([value.projects, [...value.pages], value.open ?? null]);
  return plain(a) === plain(b);
}

/** Waits `ms`, or less when aborted or woken (`wake.current()`). */
function pause(ms: number, signal: AbortSignal, wake: { current: () => void }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      wake.current = () => {};
      resolve();
    };
    const timer = setTimeout(done, ms);
    wake.current = done;
    signal.addEventListener("abort", done, { once: true });
  });
}
