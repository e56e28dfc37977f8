/**
 * The shell command a tool call runs, when it is one (`bash`'s `command`): a card shows it as a
 * terminal would, `$ command`, rather than as the JSON of its input.
 */
export function commandOf(tool: string, input: Record<string, unknown>): string | undefined {
  if (tool !== "bash") return undefined;
  const { command } = input;
  return typeof command === "string" && command !== "" ? command : undefined;
}
