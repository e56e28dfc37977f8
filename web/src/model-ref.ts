/** A model as the chat writes it, `provider/model`, and back. */
import type { ModelRef } from "opencode-bridge/client";

export function refOf(model: ModelRef): string {
  return `${model.providerID}/${model.modelID}`;
}

/** The model `text` names (`provider/model`; the model's id may hold slashes), if it names one. */
export function parseRef(text: string): ModelRef | undefined {
  const [providerID, ...rest] = text.split("/");
  const modelID = rest.join("/");
  return providerID === undefined || providerID === "" || modelID === ""
    ? undefined
    : { providerID, modelID };
}
