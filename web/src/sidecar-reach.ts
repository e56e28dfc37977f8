/**
 * Whether the sidecar at the page's origin answers at all: an error it sends (a 401 after a
 * restart with a new token, a 5xx) is an answer; no connection, or none within the call's bound,
 * is not. The session list's polls take the sidecar for gone on that (sessions.ts); once gone,
 * the page looks now and then, for a while, whether it is back at the same address.
 */
import {
  type BridgeClient,
  BridgeConnectionError,
  BridgeTimeoutError,
} from "opencode-bridge/client";
import { useEffect } from "preact/hooks";

/** How often, and how long, a page whose sidecar is gone looks for it again. */
const LOOK_AGAIN_MS = 5000;
const LOOKS = 120; // ten minutes
const CALL_BOUND_MS = 4000;

/** The call failed without an answer from the sidecar. */
export function unanswered(error: unknown): boolean {
  return error instanceof BridgeConnectionError || error instanceof BridgeTimeoutError;
}

/**
 * While `gone`, looks for the sidecar at `client`'s address every few seconds, for a bounded
 * time; calls `onBack` once it answers (started again on the same port: with the same token
 * the chat goes on, with a new one the token page says so).
 */
export function useLookForReturn(client: BridgeClient, gone: boolean, onBack: () => void): void {
  useEffect(() => {
    if (!gone) return;
    const abort = new AbortController();
    void (async () => {
      for (let look = 0; look < LOOKS; look++) {
        if (!(await pause(LOOK_AGAIN_MS, abort.signal))) return;
        try {
          await client.listSessions({ timeoutMs: CALL_BOUND_MS, signal: abort.signal });
        } catch (error) {
          if (abort.signal.aborted) return;
          if (unanswered(error)) continue;
        }
        onBack();
        return;
      }
    })();
    return () => abort.abort();
  }, [client, gone, onBack]);
}

/** Waits `ms`; false when `signal` fired first. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve(false);
      },
      { once: true },
    );
  });
}
