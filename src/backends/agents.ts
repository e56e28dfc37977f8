/**
 * The agents a user can pick for a session (`Bridge.agents`, `Session.switchAgent`): OpenCode's
 * list, less the ones a person does not choose.
 */

import { UsageError } from "../errors.js";
import type { OpencodeClient } from "../opencode-client/opencode-client.js";
import type { AgentInfo as NativeAgent } from "../opencode-protocol/api/session.js";
import { sleep, withDeadline } from "../util/abort.js";

/** An agent a session can switch to. */
export interface AgentInfo {
  /** Its name, what `Session.switchAgent` takes (`build`, `plan`, or a configured one). */
  name: string;
  description?: string;
}

/**
 * Primary agents that are not hidden. A subagent is run by the `task` tool, not chosen for a
 * session; hidden ones (`compaction`, `title`, `summary`) are OpenCode's own helpers, which the
 * TUI does not offer either. `all` means primary and subagent both.
 */
export function pickableAgents(agents: readonly NativeAgent[]): AgentInfo[] {
  return agents
    .filter((agent) => agent.mode !== "subagent" && agent.hidden !== true)
    .map((agent) => ({
      name: agent.id,
      ...(agent.description === undefined ? {} : { description: agent.description }),
    }));
}

/** How long a location's agents may take to load (about a second on 1.18.33). */
const AGENTS_LOAD_MS = 10_000;
const AGENTS_POLL_MS = 200;

/**
 * The agents a session in `directory` can switch to (its project's config decides). Verified on
 * 1.18.33: OpenCode loads a location's agents in the background, as it does its model catalog,
 * and `GET /api/agent` answers an empty list until then (about a second after the location's
 * first request). It always has `build`, so an empty list is asked again, for a bounded time.
 */
export async function listAgents(
  client: OpencodeClient,
  directory: string,
  options: { signal?: AbortSignal; loadTimeoutMs?: number } = {},
): Promise<AgentInfo[]> {
  const timeoutMs = options.loadTimeoutMs ?? AGENTS_LOAD_MS;
  const what = `waiting for OpenCode to load the agents of ${directory}`;
  const deadline = withDeadline(what, timeoutMs, options.signal);
  try {
    for (;;) {
      const agents = await client.v2.agent.list({ directory, signal: deadline.signal });
      if (agents.length > 0) return pickableAgents(agents);
      await sleep(AGENTS_POLL_MS, deadline.signal, what);
    }
  } catch (error) {
    throw deadline.classify(error);
  } finally {
    deadline.dispose();
  }
}

/**
 * Refuses a name that is not one of `agents`. OpenCode 1.18.33 takes any name and runs the
 * next turns under it, as an agent it does not have: a typo would go unnoticed.
 */
export function checkAgentName(name: string, agents: readonly AgentInfo[]): void {
  if (agents.some((agent) => agent.name === name)) return;
  const names = agents.map((agent) => agent.name).join(", ");
  throw new UsageError(
    `unknown agent ${JSON.stringify(name)}: the agents a session can switch to are ${names || "none"}`,
  );
}

/** How long a name once found in a location's agent list is taken without asking again. */
const KNOWN_AGENT_MS = 30_000;

/**
 * The names of a location's agents a switch has already seen: a switch to one of them does
 * not fetch the whole list again (a list of 12–26 KB, twice the cost of the switch itself),
 * for `KNOWN_AGENT_MS`. A name it does not know is always checked against a fresh list, so a
 * newly configured agent is found and a typo is refused with the names there are.
 */
export class KnownAgents {
  #names = new Set<string>();
  #fetchedAt = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Refuses `name` unless it is one of the agents (`fetch` reads the list when needed). */
  async check(name: string, fetch: () => Promise<AgentInfo[]>): Promise<void> {
    if (this.#names.has(name) && this.#now() - this.#fetchedAt < KNOWN_AGENT_MS) return;
    const agents = await fetch();
    this.#names = new Set(agents.map((agent) => agent.name));
    this.#fetchedAt = this.#now();
    checkAgentName(name, agents);
  }
}
