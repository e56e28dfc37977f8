/** What the transcript keeps of an attachment (a path, a URL, or a byte-free data ref), for a person. */
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
