/**
 * The open session's snapshot asked for as the page starts, before the rest of the app is
 * evaluated and drawn: `main.tsx` imports this module first, so the request is under way while
 * the bundle's modules run and the chat draws its frame (~100 ms on a slow machine), instead of
 * after them. The app's client takes the answer through `withEarlyRead(fetch)` for the same
 * call, once; any other call, or this one after a failure, goes to the network as usual. Only
 * what the page would ask for anyway is asked (the session in its fragment, with its token), and
 * the token goes in the header, as the client sends it.
 */
import type { FetchLike } from "opencode-bridge/client";
import { targetFromUrl } from "./open-session-url.js";
import { takeToken } from "./token.js";

interface EarlyRead {
  url: string;
  authorization: string;
  answer: Promise<Response>;
}

let early: EarlyRead | undefined = startEarlyRead();

function startEarlyRead(): EarlyRead | undefined {
  const target = targetFromUrl();
  const token = takeToken();
  // A subagent's child is read through its parent, not from a snapshot.
  if (target === undefined || target.parentId !== undefined || token === undefined) return;
  const url = new URL(`/v1/sessions/${encodeURIComponent(target.sessionId)}/live`, location.origin)
    .href;
  const authorization = `Bearer ${token}`;
  const answer = fetch(url, { headers: { authorization } });
  // Not taken (the reader opened another session first): nothing waits on it.
  answer.catch(() => {});
  return { url, authorization, answer };
}

/** `fetch`, answering the early read's own call from it, once. */
export function withEarlyRead(fetchOf: FetchLike): FetchLike {
  return (input, init) => {
    const read = early;
    if (read === undefined || !sameCall(read, input, init)) return fetchOf(input, init);
    early = undefined;
    init.signal?.throwIfAborted();
    const { signal } = init;
    if (signal === null || signal === undefined) return read.answer;
    // The caller's bound still holds: the early request itself is not cancelled (nothing would
    // read its answer), the call gives up when its signal does.
    return new Promise<Response>((resolve, reject) => {
      const abort = () => reject(signal.reason);
      signal.addEventListener("abort", abort, { once: true });
      read.answer.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
    });
  };
}

function sameCall(read: EarlyRead, input: string, init: RequestInit): boolean {
  const method = init.method ?? "GET";
  const headers = new Headers(init.headers);
  return (
    method === "GET" &&
    new URL(input, location.origin).href === read.url &&
    headers.get("authorization") === read.authorization
  );
}
