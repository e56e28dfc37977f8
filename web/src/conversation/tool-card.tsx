/**
 * A tool call: its tool, input, state and output (long output folded); a file edit's diff; a
 * shell command as `$ command`, its JSON input folded. While the call runs, it says so where
 * the output will come: OpenCode 1.18 sends a command's output only when it ends.
 */
import type { ToolPart } from "opencode-bridge/client";
import type { ComponentChildren } from "preact";
import { toolFilePath, ViewFileButton } from "../workbench/view-file-button.js";
import { DiffView } from "./diff-view.js";
import { commandOf } from "./tool-command.js";
import { toolDiff } from "./tool-diff.js";

/** Output longer than this (characters or lines) starts folded. */
const FOLD_CHARS = 800;
const FOLD_LINES = 12;

export function ToolCard(props: {
  part: ToolPart;
  streamedInput: string | undefined;
  showDiff: boolean;
  /** Whether its turn still runs (a call cut off by an interrupt runs no more). */
  turnRunning: boolean;
  /** Drawn inside the card, after its output: the subagent a `task` call started. */
  children?: ComponentChildren;
}) {
  const { part } = props;
  const input =
    Object.keys(part.input).length === 0 && props.streamedInput !== undefined
      ? props.streamedInput
      : JSON.stringify(part.input, null, 2);
  const diff = props.showDiff ? toolDiff(part.tool, part.input) : undefined;
  const command = commandOf(part.tool, part.input);
  const running = part.state === "running" && props.turnRunning;
  return (
    <section
      class={`part-tool ${part.state}`}
      data-testid="part-tool"
      data-tool={part.tool}
      data-state={part.state}
      aria-label={`Tool ${part.tool}, ${part.state}`}
      aria-busy={running}
    >
      <header class="tool-header">
        <span class="tool-name">{part.tool}</span>
        {part.title === undefined ? null : <span class="tool-title">{part.title}</span>}
        <span class={`tool-state ${part.state}`}>{part.state}</span>
      </header>
      {command === undefined ? null : (
        <pre class="tool-command" data-testid="tool-command">
          <span class="prompt" aria-hidden="true">
            {"$ "}
          </span>
          {command}
        </pre>
      )}
      <details class="tool-input-folded" open={diff === undefined && command === undefined}>
        <summary>Input</summary>
        <pre class="tool-input" data-testid="tool-input">
          {input}
        </pre>
      </details>
      {diff === undefined ? null : (
        <DiffView diff={diff} label={part.title} applied={part.state !== "failed"} />
      )}
      {running && part.output === undefined ? (
        <p class="tool-running muted" data-testid="tool-running">
          <span class="working-spinner" aria-hidden="true" />
          {Object.keys(part.input).length === 0 ? "Receiving its input…" : "Running…"}
        </p>
      ) : null}
      {part.output === undefined ? null : <ToolOutput output={part.output} />}
      <ViewFileButton path={toolFilePath(part.input)} />
      {props.children}
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
  const folded = props.output.length > FOLD_CHARS || lines > FOLD_LINES;
  return (
    <div class="tool-output" data-testid="tool-output">
      {folded ? (
        <details>
          <summary>
            Output ({lines} lines, {props.output.length} characters)
          </summary>
          <pre>{props.output}</pre>
        </details>
      ) : (
        <pre>{props.output}</pre>
      )}
    </div>
  );
}
