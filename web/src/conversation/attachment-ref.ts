/**
 * What the transcript keeps of an attachment (a path, a URL, or a byte-free data ref), for a
 * person; `mime` for a data ref (what was sent as bytes).
 */
export function describeRef(ref: string): { name: string; detail: string; mime?: string } {
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
    const mime = (data[1] ?? "").toLowerCase();
    return { name, detail: `${mime}${bytes === undefined ? "" : `, ${bytes} bytes`}`, mime };
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
