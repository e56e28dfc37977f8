/** The files panel: its frame at once, its browser loaded on demand the first time it opens. */
import { LoadingBody, PanelFrame } from "../workbench/panel-frame.js";
import { useLazy } from "../workbench/use-lazy.js";
import type { FilesBrowserProps } from "./files-browser.js";

export function FilesDrawer(props: FilesBrowserProps & { onClose: () => void }) {
  const { onClose, ...browser } = props;
  const view = useLazy<FilesBrowserProps>(() =>
    import("./files-browser.js").then((module) => module.FilesBrowser),
  );
  return (
    <PanelFrame
      title="Files"
      testId="files-panel"
      closeLabel="Close the files"
      closeOnEscape={true}
      onClose={onClose}
    >
      {view.kind === "loaded" ? (
        // Keyed by where it opens: a second "View file" starts it there.
        <view.Component key={`${browser.path}\n${browser.isFile}`} {...browser} />
      ) : (
        <LoadingBody failed={view.kind === "failed" ? view.message : undefined} what="files" />
      )}
    </PanelFrame>
  );
}
