/**
 * OpenCode's questions as the UI reads them. The event carries them as `unknown[]` (the
 * bridge passes them through), so each is read defensively: what is not understood is shown
 * as text rather than dropped.
 */
export interface Question {
  question: string;
  header?: string;
  options: Array<{ label: string; description?: string }>;
  multiple: boolean;
}

export function questionsOf(raw: readonly unknown[]): Question[] {
  return raw.map((item) => {
    if (typeof item !== "object" || item === null)
      return { question: String(item), options: [], multiple: false };
    const record = item as Record<string, unknown>;
    const options = Array.isArray(record.options) ? record.options.flatMap(optionOf) : [];
    return {
      question: typeof record.question === "string" ? record.question : JSON.stringify(item),
      ...(typeof record.header === "string" ? { header: record.header } : {}),
      options,
      multiple: record.multiple === true,
    };
  });
}

function optionOf(raw: unknown): Array<{ label: string; description?: string }> {
  if (typeof raw === "string") return [{ label: raw }];
  if (typeof raw !== "object" || raw === null) return [];
  const record = raw as Record<string, unknown>;
  if (typeof record.label !== "string") return [];
  return [
    {
      label: record.label,
      ...(typeof record.description === "string" ? { description: record.description } : {}),
    },
  ];
}
