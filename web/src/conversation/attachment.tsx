/**
 * An input's attachment as the transcript keeps it: a path, a URL, or a byte-free data ref
 * (`data:<mime>;name=…;bytes=…`). An image is drawn from this tab's preview when it sent it,
 * else from the sidecar, which keeps the recent images sent through it; otherwise a chip with
 * its name.
 */
import { SENT_IMAGE_TYPES } from "opencode-bridge/client";
import { sentImageOf } from "../composer/sent-images.js";
import { describeRef } from "./attachment-ref.js";
import { useKeptImage } from "./kept-image.js";

export function Attachment(props: {
  text: string;
  fileRef: string;
  inputId: string;
  index: number;
}) {
  const described = describeRef(props.fileRef);
  const preview = sentImageOf(props.text, described.name);
  const keptType = described.mime !== undefined && SENT_IMAGE_TYPES.includes(described.mime);
  const kept = useKeptImage(props.inputId, props.index, preview === undefined && keptType);
  const image = preview ?? kept;
  if (image !== undefined) {
    return <img class="attachment-image" src={image} alt={described.name} />;
  }
  return (
    <span class="chip" title={described.detail}>
      {described.name}
    </span>
  );
}
