/**
 * Which workbench panel is open on the open session (the terminal, or the files at a place),
 * kept with the session it is of: opening another session closes it, and coming back does not
 * bring it back (as the review panel, use-review.ts).
 */
import { useCallback, useState } from "preact/hooks";

export type WorkbenchPanel =
  | { kind: "terminal" }
  /** `path`: a directory, or a file to show (relative to the session directory, or absolute in it). */
  | { kind: "files"; path: string; isFile: boolean };

export interface Workbench {
  panel: WorkbenchPanel | undefined;
  open: (panel: WorkbenchPanel) => void;
  close: () => void;
}

export function useWorkbench(sessionId: string | undefined): Workbench {
  const [opened, setOpened] = useState<{ of: string; panel: WorkbenchPanel } | undefined>();
  const open = useCallback(
    (panel: WorkbenchPanel) => sessionId !== undefined && setOpened({ of: sessionId, panel }),
    [sessionId],
  );
  const close = useCallback(() => setOpened(undefined), []);
  return { panel: opened?.of === sessionId ? opened?.panel : undefined, open, close };
}
