/** A tool call: its tool, input, state and output (long output folded). */
import type { ToolPart } from "opencode-bridge/client";

/** Output longer than this (characters or lines) starts folded. */
const FOLD_CHARS = 800;
const FOLD_LINES = 12;

export function ToolCard(props: { part: ToolPart; streamedInput: string | undefined }) {
  const { part } = props;
  const input =
    Object.keys(part.input).length === 0 && props.streamedInput !== undefined
      ? props.streamedInput
      : JSON.stringify(part.input, null, 2);
  return (
    <section
      class={`part-tool ${part.state}`}
      data-testid="part-tool"
      data-tool={part.tool}
      data-state={part.state}
      aria-label={`Tool ${part.tool}, ${part.state}`}
    >
      <header class="tool-header">
        <span class="tool-name">{part.tool}</span>
        {part.title === undefined ? null : <span class="tool-title">{part.title}</span>}
        <span class={`tool-state ${part.state}`}>{part.state}</span>
      </header>
      <pre class="tool-input" data-testid="tool-input">
        {input}
      </pre>
      {part.output === undefined ? null : <ToolOutput output={part.output} />}
      {part.error === undefined ? null : (
        <p class="tool-error" role="status">
          {part.error.kind}: {part.error.message}
        </p>
      )}
    </section>
  );
}

function ToolOutput(props: { output: string }) {
  const lines = props.output.split("\n").length;
  if (props.output.length <= FOLD_CHARS && lines <= FOLD_LINES) {
    return (
      <pre class="tool-output" data-testid="tool-output">
        {props.output}
      </pre>
    );
  }
  return (
    <details class="tool-output-folded">
      <summary>
        Output ({lines} lines, {props.output.length} characters)
      </summary>
      <pre class="tool-output" data-testid="tool-output">
        {props.output}
      </pre>
    </details>
  );
}
