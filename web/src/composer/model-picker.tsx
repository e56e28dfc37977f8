/** The session's model, from the sidecar's catalog; a change applies to the next steps. */
import type { ModelCatalog, ModelRef } from "opencode-bridge/client";

export function ModelPicker(props: {
  catalog: ModelCatalog | undefined;
  current: ModelRef | undefined;
  onPick: (model: ModelRef) => void;
}) {
  const { catalog } = props;
  if (catalog === undefined || catalog.models.length === 0) return null;
  const current = props.current ?? catalog.default;
  const value = current === undefined ? "" : refOf(current);
  const known = catalog.models.some((model) => refOf(model) === value);
  return (
    <select
      class="model-picker"
      data-testid="model-picker"
      aria-label="Model"
      value={value}
      onChange={(event) => {
        const [providerID, ...rest] = event.currentTarget.value.split("/");
        const modelID = rest.join("/");
        if (providerID !== undefined && providerID !== "" && modelID !== "") {
          props.onPick({ providerID, modelID });
        }
      }}
    >
      {known || value === "" ? null : <option value={value}>{value}</option>}
      {catalog.models.map((model) => (
        <option key={refOf(model)} value={refOf(model)}>
          {model.name === undefined ? refOf(model) : `${model.name} (${refOf(model)})`}
        </option>
      ))}
    </select>
  );
}

function refOf(model: ModelRef): string {
  return `${model.providerID}/${model.modelID}`;
}
