/**
 * The session's agent (OpenCode's primary agents: build, plan, …), beside the model picker; a
 * change applies to the next steps (`client.switchAgent`, then `agent.switched`). Drawn as the
 * model picker is: a native `<select>` under a label with the agent's name. Until the session
 * has run a step or switched, which agent it has is not known here (OpenCode's default, or
 * the config's `default_agent`): the label then says only "Agent".
 */
import type { AgentInfo, BridgeClient } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";

const LIST_BOUND_MS = 10_000;

/** The agents of `directory` (none where the backend cannot switch, or before they came). */
export function useAgents(
  client: BridgeClient,
  directory: string | undefined,
  enabled: boolean,
  onError: (error: unknown) => void,
): AgentInfo[] {
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  // The caller's handler may be a new function each render: a failure goes to the latest.
  const report = useRef(onError);
  report.current = onError;
  useEffect(() => {
    setAgents([]);
    if (!enabled || directory === undefined) return;
    const cancel = new AbortController();
    client
      .agents({ directory, signal: cancel.signal, timeoutMs: LIST_BOUND_MS })
      .then(setAgents)
      .catch((error: unknown) => {
        if (!cancel.signal.aborted) report.current(error);
      });
    return () => cancel.abort();
  }, [client, directory, enabled]);
  return agents;
}

export function AgentPicker(props: {
  agents: readonly AgentInfo[];
  current: string | undefined;
  onPick: (agent: string) => void;
}) {
  const { agents, current } = props;
  if (agents.length === 0) return null;
  const value = current ?? "";
  const known = agents.find((agent) => agent.name === value);
  const shown = value === "" ? "Agent" : value;
  const tooltip =
    value === ""
      ? "the project's default until a step or a switch says"
      : known?.description === undefined
        ? value
        : `${value}: ${known.description}`;
  return (
    <label
      class="model-picker agent-picker"
      data-testid="agent-picker-box"
      title={`Agent: ${tooltip}`}
    >
      <span class="model-picker-label" data-testid="agent-picker-label" aria-hidden="true">
        {shown}
      </span>
      <select
        data-testid="agent-picker"
        aria-label="Agent"
        value={value}
        onChange={(event) => {
          const picked = event.currentTarget.value;
          if (picked !== "" && picked !== current) props.onPick(picked);
        }}
      >
        {value === "" ? <option value="">the project's default</option> : null}
        {known !== undefined || value === "" ? null : <option value={value}>{value}</option>}
        {agents.map((agent) => (
          <option key={agent.name} value={agent.name}>
            {agent.description === undefined ? agent.name : `${agent.name}: ${agent.description}`}
          </option>
        ))}
      </select>
    </label>
  );
}
