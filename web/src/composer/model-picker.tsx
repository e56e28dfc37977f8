/**
 * The session's model, from the sidecar's catalog; a change applies to the next steps.
 *
 * A native `<select>` (its list, keyboard and phone picker come free) that draws nothing
 * itself: over it sits a label with the model's name alone, cut with an ellipsis when the
 * row is narrow, and the full "name (provider/model)" in its tooltip. A select clips its
 * text without an ellipsis, which left the name cut off mid-word.
 */
import type { ModelCatalog, ModelRef } from "opencode-bridge/client";
import { parseRef, refOf } from "../model-ref.js";

export function ModelPicker(props: {
  catalog: ModelCatalog | undefined;
  current: ModelRef | undefined;
  onPick: (model: ModelRef) => void;
}) {
  const { catalog } = props;
  if (catalog === undefined || catalog.models.length === 0) return null;
  const current = props.current ?? catalog.default;
  const value = current === undefined ? "" : refOf(current);
  const known = catalog.models.find((model) => refOf(model) === value);
  const full = known === undefined ? value : describe(known);
  return (
    <label class="model-picker" data-testid="model-picker-box" title={`Model: ${full}`}>
      <span class="model-picker-label" data-testid="model-picker-label" aria-hidden="true">
        {known?.name ?? value}
      </span>
      <select
        data-testid="model-picker"
        aria-label="Model"
        value={value}
        onChange={(event) => {
          const picked = parseRef(event.currentTarget.value);
          if (picked !== undefined) props.onPick(picked);
        }}
      >
        {known !== undefined || value === "" ? null : <option value={value}>{value}</option>}
        {catalog.models.map((model) => (
          <option key={refOf(model)} value={refOf(model)}>
            {describe(model)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A model as the list offers it: its name and its reference. */
function describe(model: ModelCatalog["models"][number]): string {
  return model.name === undefined ? refOf(model) : `${model.name} (${refOf(model)})`;
}
