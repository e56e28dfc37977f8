/** The draft's attachments: image previews, path chips, and the controls that add them. */
import { useState } from "preact/hooks";
import { type DraftAttachments, nameOf } from "./draft-attachments.js";

export function AttachmentTray(props: { draft: DraftAttachments }) {
  const { draft } = props;
  const [path, setPath] = useState("");
  return (
    <div class="attachment-tray">
      {draft.images.length === 0 && draft.paths.length === 0 ? null : (
        <ul class="drafts" aria-label="Attachments">
          {draft.images.map((image) => (
            <li key={image.id} class="image-preview" data-testid="image-preview">
              <img src={image.url} alt={nameOf(image)} />
              <button
                type="button"
                data-testid="remove-attachment"
                aria-label={`Remove ${nameOf(image)}`}
                onClick={() => draft.removeImage(image.id)}
              >
                ×
              </button>
            </li>
          ))}
          {draft.paths.map((kept) => (
            <li key={kept} class="chip" data-testid="attachment-chip">
              <span>{kept}</span>
              <button
                type="button"
                data-testid="remove-attachment"
                aria-label={`Remove ${kept}`}
                onClick={() => draft.removePath(kept)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="attach-controls">
        <label class="attach-image-label">
          <span>Image…</span>
          <input
            type="file"
            accept="image/*"
            multiple
            data-testid="attach-image"
            aria-label="Attach images"
            onChange={(event) => {
              const input = event.currentTarget;
              draft.addFiles(input.files ?? []);
              input.value = "";
            }}
          />
        </label>
        <input
          class="attach-path"
          data-testid="attach-path"
          aria-label="Attach a file by its path in the session directory (Enter adds)"
          placeholder="Attach a file by path (Enter)"
          value={path}
          onInput={(event) => setPath(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              draft.addPath(path);
              setPath("");
            }
          }}
        />
      </div>
    </div>
  );
}
