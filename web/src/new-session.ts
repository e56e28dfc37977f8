/**
 * "+ New session": one session per click. Creating one takes seconds (OpenCode makes it), so
 * the button says so and takes no other click meanwhile; a double click's second click comes
 * before the page has drawn the button disabled, hence the guard outside the state.
 */
import type { BridgeClient } from "opencode-bridge/client";
import { useRef, useState } from "preact/hooks";

const CALL_BOUND_MS = 30_000;

export interface NewSession {
  /** A session is being created. */
  creating: boolean;
  /**
   * Creates one (in `directory`, default the sidecar's) and hands its id to `onCreated`, unless
   * one is being created already.
   */
  create(directory?: string): Promise<void>;
}

export function useNewSession(
  client: BridgeClient,
  onCreated: (sessionId: string) => void,
  onError: (error: unknown) => void,
): NewSession {
  const [creating, setCreating] = useState(false);
  const busy = useRef(false);
  return {
    creating,
    async create(directory) {
      if (busy.current) return;
      busy.current = true;
      setCreating(true);
      try {
        const created = await client.createSession(directory === undefined ? {} : { directory }, {
          timeoutMs: CALL_BOUND_MS,
        });
        onCreated(created.id);
      } catch (error) {
        onError(error);
      } finally {
        busy.current = false;
        setCreating(false);
      }
    },
  };
}
