/**
 * The error banner, kept per session: a failure belongs to the session whose call failed, and
 * is shown only while that session is open (a late 409 of one session never sits on top of
 * another's conversation). It is kept, until dismissed, while another session is open: a send
 * refused after its session was left is still told when the user comes back. A failure of no
 * session (creating one) is the page's, and goes when another session opens.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { describe } from "./live-session.js";

/** The key of the page's own problems. */
const PAGE = "";

export interface SessionProblems {
  /** The banner's text for the session open now, if any. */
  shown: string | undefined;
  /** A reporter for failures of `sessionId` (the page's own when undefined). */
  reportFor(sessionId: string | undefined): (error: unknown) => void;
  /** Hides the banner of the session open now. */
  dismiss(): void;
}

export function useSessionProblems(
  openId: string | undefined,
  onError: (error: unknown) => void,
): SessionProblems {
  const [problems, setProblems] = useState<Readonly<Record<string, string>>>({});
  const reportFor = useCallback(
    (sessionId: string | undefined) => (error: unknown) => {
      setProblems((old) => ({ ...old, [sessionId ?? PAGE]: describe(error) }));
      onError(error);
    },
    [onError],
  );
  useEffect(() => {
    // Opening another session leaves the page's last problem behind.
    setProblems((old) => (PAGE in old ? without(old, PAGE) : old));
  }, [openId]);
  const key = openId ?? PAGE;
  return {
    shown: problems[key] ?? problems[PAGE],
    reportFor,
    dismiss: () => setProblems((old) => without(without(old, key), PAGE)),
  };
}

function without(record: Readonly<Record<string, string>>, key: string): Record<string, string> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}
