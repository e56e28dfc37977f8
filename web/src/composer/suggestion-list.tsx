/**
 * The list a picker of the composer shows above the box (commands after `/`, files after
 * `@`). The focus stays in the box: it is the list's combobox, naming the active option with
 * `aria-activedescendant`, and the arrow keys move it (composer-pickers.ts). A pointer picks
 * too; its press does not take the focus from the box. Every text here is drawn as text: a
 * command's description and a file's name are the project's, not ours.
 */

export interface Suggestion {
  key: string;
  /** What the option is: `/greet`, `src/notes.md`. */
  label: string;
  /** What the arguments are (`$ARGUMENTS`), after the label. */
  hint?: string;
  /** One line about it (a command's description). */
  detail?: string;
}

export interface SuggestionListProps {
  id: string;
  /** What the list offers, for a screen reader: "Commands", "Files". */
  label: string;
  items: readonly Suggestion[];
  active: number;
  /** Said in place of the options: searching, nothing found, a failure. */
  status: string | undefined;
  onPick: (index: number) => void;
  onHover: (index: number) => void;
}

/** The id of option `index` of list `listId` (the box's `aria-activedescendant`). */
export function optionId(listId: string, index: number): string {
  return `${listId}-option-${index}`;
}

export function SuggestionList(props: SuggestionListProps) {
  const { id, items, active } = props;
  return (
    <div class="suggestions" data-testid="suggestions">
      {items.length === 0 ? null : (
        <div
          id={id}
          role="listbox"
          aria-label={props.label}
          data-testid="suggestion-list"
          // The box keeps the focus (and its caret) through a click on an option or the scrollbar.
          onMouseDown={(event) => event.preventDefault()}
        >
          {items.map((item, index) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keys are the box's (it keeps the focus: aria-activedescendant)
            <div
              key={item.key}
              id={optionId(id, index)}
              role="option"
              aria-selected={index === active}
              tabIndex={-1}
              class={index === active ? "suggestion active" : "suggestion"}
              data-testid="suggestion"
              data-value={item.label}
              onClick={() => props.onPick(index)}
              onMouseEnter={() => props.onHover(index)}
            >
              <span class="suggestion-label">{item.label}</span>
              {item.hint === undefined ? null : <span class="suggestion-hint">{item.hint}</span>}
              {item.detail === undefined ? null : (
                <span class="suggestion-detail" data-testid="suggestion-detail">
                  {item.detail}
                </span>
              )}
            </div>
          ))}
        </div>
      )}
      {props.status === undefined ? null : (
        <p class="suggestion-status" role="status" data-testid="suggestion-status">
          {props.status}
        </p>
      )}
    </div>
  );
}
