/**
 * The composer's two pickers, driven from its box: `/` at the message's start lists the
 * project's commands, `@letters` lists its files. The arrow keys move through the list, Enter
 * or Tab picks, Escape closes it until another token is typed. A command picked is written in
 * (`/greet `, its arguments to follow); a file picked is written as `@path` and attached.
 */
import type { BridgeClient, CommandInfo } from "opencode-bridge/client";
import { useEffect, useState } from "preact/hooks";
import { type PickerToken, replaceToken, tokenAtCaret } from "./composer-token.js";
import { useFileSearch } from "./file-search.js";
import type { ProjectCommands } from "./project-commands.js";
import { optionId, type Suggestion, type SuggestionListProps } from "./suggestion-list.js";

export interface PickerInputs {
  client: BridgeClient;
  sessionId: string;
  commands: ProjectCommands;
  text: string;
  caret: number;
  /** Writes the box's new text and puts the caret at `caret`. */
  write: (text: string, caret: number) => void;
  /** Attaches a picked file to the draft. */
  attach: (path: string) => void;
  /** `@` opens the file list: false where no session exists yet (the landing page). */
  findsFiles: boolean;
}

export interface ComposerPickers {
  /** The open list, or undefined when none shows. */
  list: SuggestionListProps | undefined;
  /** The box's ARIA attributes that tie it to the list. */
  boxAria: Record<string, string | undefined>;
  /** Handles a key of the box; true when the list took it (the box then ignores it). */
  onKeyDown: (event: KeyboardEvent) => boolean;
}

const LIST_ID = "composer-suggestions";

export function useComposerPickers(inputs: PickerInputs): ComposerPickers {
  const { commands, text, caret } = inputs;
  const found = tokenAtCaret(text, caret);
  const [dismissed, setDismissed] = useState<string | undefined>(undefined);
  const [active, setActive] = useState(0);
  const tokenKey = found === undefined ? undefined : `${found.kind}:${found.start}`;
  const token =
    tokenKey !== undefined &&
    tokenKey !== dismissed &&
    (found?.kind !== "file" || inputs.findsFiles)
      ? found
      : undefined;
  useEffect(() => {
    if (tokenKey === undefined) setDismissed(undefined);
  }, [tokenKey]);
  useEffect(() => setActive(0), [token?.kind, token?.query]);

  const { load } = commands;
  const wantsCommands = token?.kind === "command";
  useEffect(() => {
    if (wantsCommands) load().catch(() => {}); // the failure shows as the list's status
  }, [wantsCommands, load]);
  const search = useFileSearch(
    inputs.client,
    inputs.sessionId,
    token?.kind === "file" ? token.query : undefined,
  );

  if (token === undefined) return { list: undefined, boxAria: {}, onKeyDown: () => false };
  const { items, status, pick } =
    token.kind === "command"
      ? commandOptions(token, commands, inputs)
      : fileOptions(token, search, inputs);
  const shown = Math.min(active, Math.max(items.length - 1, 0));
  const close = () => setDismissed(tokenKey);
  return {
    list: {
      id: LIST_ID,
      label: token.kind === "command" ? "Commands" : "Files",
      items,
      active: shown,
      status,
      onPick: pick,
      onHover: setActive,
    },
    boxAria: {
      "aria-controls": items.length === 0 ? undefined : LIST_ID,
      "aria-autocomplete": "list",
      "aria-activedescendant": items.length === 0 ? undefined : optionId(LIST_ID, shown),
    },
    onKeyDown(event) {
      if (event.key === "Escape") {
        close();
        return true;
      }
      if (items.length === 0) return false;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((shown + step + items.length) % items.length);
        return true;
      }
      if ((event.key === "Enter" && !event.shiftKey && !event.isComposing) || event.key === "Tab") {
        pick(shown);
        return true;
      }
      return false;
    },
  };
}

interface Options {
  items: Suggestion[];
  status: string | undefined;
  pick: (index: number) => void;
}

function commandOptions(
  token: PickerToken,
  commands: ProjectCommands,
  inputs: PickerInputs,
): Options {
  const listed = commands.commands;
  const matching = listed === undefined ? [] : matchingCommands(listed, token.query);
  const items = matching.map((command) => ({
    key: command.name,
    label: `/${command.name}`,
    ...(command.hints.length === 0 ? {} : { hint: command.hints.join(" ") }),
    ...(command.description === undefined ? {} : { detail: command.description }),
  }));
  const status =
    commands.problem ??
    (listed === undefined
      ? "Loading commands…"
      : matching.length === 0
        ? `No command starts with /${token.query}: Enter sends the message as text.`
        : undefined);
  return {
    items,
    status,
    pick(index) {
      const command = matching[index];
      if (command === undefined) return;
      const next = replaceToken(inputs.text, token, `/${command.name}`);
      inputs.write(next.text, next.caret);
    },
  };
}

/** Those whose name starts with `query`, then those that only contain it. */
function matchingCommands(commands: readonly CommandInfo[], query: string): CommandInfo[] {
  const wanted = query.toLowerCase();
  const starting = commands.filter((command) => command.name.toLowerCase().startsWith(wanted));
  const containing = commands.filter(
    (command) =>
      !command.name.toLowerCase().startsWith(wanted) && command.name.toLowerCase().includes(wanted),
  );
  return [...starting, ...containing];
}

function fileOptions(
  token: PickerToken,
  search: ReturnType<typeof useFileSearch>,
  inputs: PickerInputs,
): Options {
  // An answer for older letters is not offered for the new ones.
  const files = search.query === token.query ? search.files : [];
  const status =
    search.problem ??
    (files.length > 0
      ? undefined
      : search.searching || search.query !== token.query
        ? "Searching the files…"
        : `No file matches “${token.query}”.`);
  return {
    items: files.map((path) => ({ key: path, label: path })),
    status,
    pick(index) {
      const path = files[index];
      if (path === undefined) return;
      const next = replaceToken(inputs.text, token, `@${path}`);
      inputs.write(next.text, next.caret);
      inputs.attach(path);
    },
  };
}
