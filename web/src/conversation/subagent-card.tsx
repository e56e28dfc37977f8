/**
 * A subagent the turn started: a nested card with its agent, task and result, linking to its
 * child conversation (a session of its own).
 */
import type { SubagentPart } from "opencode-bridge/client";
import { Markdown } from "../markdown/markdown-view.js";
import { useSessionActions } from "../session-actions.js";

export function SubagentCard(props: { part: SubagentPart }) {
  const { part } = props;
  const actions = useSessionActions();
  return (
    <section
      class={`part-subagent ${part.state}`}
      data-testid="part-subagent"
      data-child-session-id={part.childSessionId}
      aria-label={`Subagent ${part.agent ?? ""}`}
    >
      <header class="tool-header">
        <span class="tool-name">{part.agent ?? "subagent"}</span>
        {part.description === undefined ? null : <span class="tool-title">{part.description}</span>}
        <span class={`tool-state ${part.state === "ended" ? "succeeded" : "running"}`}>
          {part.state === "ended" ? "done" : "running"}
        </span>
      </header>
      {part.result === undefined ? null : (
        <details class="subagent-result">
          <summary>Result</summary>
          <Markdown source={part.result} />
        </details>
      )}
      <a
        href={actions.childHref(part.childSessionId)}
        data-testid="subagent-link"
        onClick={(event) => {
          event.preventDefault();
          actions.openChild(part.childSessionId);
        }}
      >
        Open the subagent's conversation
      </a>
    </section>
  );
}
