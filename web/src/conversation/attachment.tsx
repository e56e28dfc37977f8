/**
 * An input's attachment as the transcript keeps it: a path, a URL, or a byte-free data ref
 * (`data:<mime>;name=…;bytes=…`). An image this tab sent is drawn from its local preview.
 */
import { sentImageOf } from "../composer/sent-images.js";

export function Attachment(props: { inputId: string; fileRef: string }) {
  const described = describeRef(props.fileRef);
  const image = sentImageOf(props.inputId, described.name);
  if (image !== undefined) {
    return <img class="attachment-image" src={image} alt={described.name} />;
  }
  return (
    <span class="chip" title={described.detail}>
      {described.name}
    </span>
  );
}

export function describeRef(ref: string): { name: string; detail: string } {
  const data = /^data:([^;,]*)((?:;[^;,]*)*)/i.exec(ref);
  if (data !== null) {
    const params = new Map(
      (data[2] ?? "")
        .split(";")
        .filter((param) => param.includes("="))
        .map((param) => param.split("=", 2) as [string, string]),
    );
    const name = decodeSafely(params.get("name") ?? "attachment");
    const bytes = params.get("bytes");
    return { name, detail: `${data[1] ?? ""}${bytes === undefined ? "" : `, ${bytes} bytes`}` };
  }
  const name = ref.split(/[\\/]/).filter(Boolean).pop() ?? ref;
  return { name, detail: ref };
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
