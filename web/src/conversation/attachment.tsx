/**
 * An input's attachment as the transcript keeps it: a path, a URL, or a byte-free data ref
 * (`data:<mime>;name=…;bytes=…`). An image this tab sent is drawn from its local preview.
 */
import { sentImageOf } from "../composer/sent-images.js";
import { describeRef } from "./attachment-ref.js";

export function Attachment(props: { text: string; fileRef: string }) {
  const described = describeRef(props.fileRef);
  const image = sentImageOf(props.text, described.name);
  if (image !== undefined) {
    return <img class="attachment-image" src={image} alt={described.name} />;
  }
  return (
    <span class="chip" title={described.detail}>
      {described.name}
    </span>
  );
}
