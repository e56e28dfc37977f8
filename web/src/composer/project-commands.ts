/**
 * The slash commands of a session's directory (`client.commands`), fetched as its composer
 * opens (OpenCode takes seconds to list them the first time: they are ready when `/` is
 * typed) and shared by the sessions of that directory while the page lives: a project's
 * commands change when its files do, rarely while one writes. A failed fetch is not kept: the
 * next `/` asks again.
 */
import type { BridgeClient, CommandInfo } from "opencode-bridge/client";
import { useCallback, useEffect, useState } from "preact/hooks";

const LIST_BOUND_MS = 30_000;

const fetched = new Map<string, Promise<CommandInfo[]>>();

function commandsOf(client: BridgeClient, directory: string): Promise<CommandInfo[]> {
  let list = fetched.get(directory);
  if (list === undefined) {
    list = client.commands({ directory, timeoutMs: LIST_BOUND_MS });
    fetched.set(directory, list);
    list.catch(() => fetched.delete(directory));
  }
  return list;
}

export interface ProjectCommands {
  /** The commands once fetched (undefined before, or after a failure). */
  commands: CommandInfo[] | undefined;
  /** Why the last fetch failed. */
  problem: string | undefined;
  /** Fetches them (once; again after a failure); resolves to them. */
  load(): Promise<CommandInfo[]>;
}

/** The commands of `directory`; `enabled` false (a backend without commands) fetches nothing. */
export function useProjectCommands(
  client: BridgeClient,
  directory: string | undefined,
  enabled: boolean,
): ProjectCommands {
  const [commands, setCommands] = useState<CommandInfo[] | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const load = useCallback(async () => {
    if (!enabled || directory === undefined) return [];
    try {
      const list = await commandsOf(client, directory);
      setCommands(list);
      setProblem(undefined);
      return list;
    } catch (error) {
      setProblem(`Could not list the commands: ${messageOf(error)}`);
      throw error;
    }
  }, [client, directory, enabled]);
  useEffect(() => {
    setCommands(undefined);
    setProblem(undefined);
    load().catch(() => {}); // said again (problem) when `/` is typed and it fails again
  }, [load]);
  return { commands, problem, load };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
