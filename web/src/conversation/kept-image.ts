/**
 * An image an input carried, as the sidecar keeps it (recent images sent through it: the
 * transcript has only a byte-free reference), fetched with the token and shown from an object
 * URL, revoked when the message goes. Undefined while it loads, and when it is not kept: the
 * attachment is then shown by its name.
 */
import { useEffect, useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";

export function useKeptImage(inputId: string, index: number, wanted: boolean): string | undefined {
  const actions = useSessionActions();
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!wanted) return;
    const abort = new AbortController();
    let made: string | undefined;
    actions.sentImage(inputId, index, abort.signal).then(
      (blob) => {
        if (abort.signal.aborted) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      () => {}, // not kept (or gone): the name is shown
    );
    return () => {
      abort.abort();
      if (made !== undefined) URL.revokeObjectURL(made);
    };
  }, [actions, inputId, index, wanted]);
  return url;
}
