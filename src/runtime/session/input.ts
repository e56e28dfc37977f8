/** An input as a session handles it, between `Session.send` and the backend's `prompt`. */
import type { Attachment } from "../../backends/attachments.js";
import type { CanonicalEvent } from "../../events/canonical.js";

export type Delivery = "steer" | "queue";

/** An input as the session handles it: attachments resolved, delivery checked. */
export interface Input {
  text: string;
  delivery: Delivery;
  files?: Attachment[];
  agents?: string[];
  signal?: AbortSignal;
}

/** The input being handed to the backend: its text, and the references of its attachments. */
export interface InFlight {
  text: string;
  refs: string[];
}

/** An input's attachments and agents, as a prompt request takes them. */
export function attachmentsOf(input: Pick<Input, "files" | "agents">) {
  return {
    ...(input.files === undefined ? {} : { files: input.files }),
    ...(input.agents === undefined ? {} : { agents: input.agents }),
  };
}

/**
 * The admission of the input in flight, with the references of its attachments (a backend
 * does not know them). Sends run one at a time, so an admission of that text is its own.
 */
export function withAttachmentRefs(
  event: CanonicalEvent,
  inFlight: InFlight | undefined,
): CanonicalEvent {
  if (event.type !== "input.admitted" || inFlight === undefined) return event;
  if (inFlight.refs.length === 0 || event.data.files !== undefined) return event;
  if (event.data.text !== inFlight.text) return event;
  return { ...event, data: { ...event.data, files: inFlight.refs } };
}
