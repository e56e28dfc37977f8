/**
 * The attachments of the message being written: images (pasted, dropped or picked, each with
 * a preview) and files by path inside the session directory. They are part of the session's
 * draft (draft-store), kept when another session is opened.
 */
import type { InputAttachment } from "opencode-bridge/client";
import type { Draft, DraftImage } from "./draft-store.js";

export type { DraftImage } from "./draft-store.js";

export interface DraftAttachments {
  images: readonly DraftImage[];
  paths: readonly string[];
  addFiles(files: Iterable<File>): void;
  removeImage(id: number): void;
  addPath(path: string): void;
  removePath(path: string): void;
  /** Forgets them all (after a send: the previews live on in the sent message). */
  clear(): void;
  /** Puts back the attachments of a send that failed (beside any added since). */
  restore(images: readonly DraftImage[], paths: readonly string[]): void;
}

let nextId = 0;

/** The attachments of `draft`, changed through `change` (the session's draft's). */
export function draftAttachments(
  draft: Draft,
  change: (update: (old: Draft) => Draft) => void,
): DraftAttachments {
  const { images, paths } = draft;
  const setImages = (update: (old: readonly DraftImage[]) => readonly DraftImage[]) =>
    change((old) => ({ ...old, images: update(old.images) }));
  const setPaths = (update: (old: readonly string[]) => readonly string[]) =>
    change((old) => ({ ...old, paths: update(old.paths) }));
  return {
    images,
    paths,
    addFiles(files) {
      const added = [...files]
        .filter((file) => file.type.startsWith("image/"))
        .map((file) => ({ id: ++nextId, file, url: URL.createObjectURL(file) }));
      if (added.length > 0) setImages((old) => [...old, ...added]);
    },
    removeImage(id) {
      const removed = images.find((image) => image.id === id);
      if (removed !== undefined) URL.revokeObjectURL(removed.url);
      setImages((old) => old.filter((image) => image.id !== id));
    },
    addPath(path) {
      const trimmed = path.trim();
      if (trimmed !== "") setPaths((old) => (old.includes(trimmed) ? old : [...old, trimmed]));
    },
    removePath(path) {
      setPaths((old) => old.filter((kept) => kept !== path));
    },
    clear() {
      setImages(() => []);
      setPaths(() => []);
    },
    restore(lostImages, lostPaths) {
      setImages((old) => [...lostImages, ...old]);
      setPaths((old) => [...lostPaths.filter((path) => !old.includes(path)), ...old]);
    },
  };
}

/**
 * What `client.send` takes. Images go up as files (multipart) unless paths come with them:
 * the sidecar takes a multipart body or JSON, not both, so then they go as data URLs.
 */
export async function attachmentsToSend(
  images: readonly DraftImage[],
  paths: readonly string[],
): Promise<InputAttachment[]> {
  const byPath = paths.map((path) => ({ path }));
  if (paths.length === 0) return images.map((image) => ({ name: nameOf(image), blob: image.file }));
  const inline = await Promise.all(
    images.map(async (image) => ({ name: nameOf(image), dataUrl: await dataUrlOf(image.file) })),
  );
  return [...inline, ...byPath];
}

export function nameOf(image: DraftImage): string {
  return image.file.name === "" ? `image-${image.id}.png` : image.file.name;
}

function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}
