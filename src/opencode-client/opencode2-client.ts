/**
 * The typed client for OpenCode 2.0 (operation ids without the `v2.` prefix, events
 * `session.*`). 2.0 cannot be installed here; this client is pinned to what the recorded
 * 2.0.18 session of seed 000 shows, and is exercised by replaying that recording.
 */
import { z } from "zod";
import type { Parsed } from "../opencode-protocol/common.js";
import { parseV2Event, type V2Event } from "../opencode-protocol/v2/events.js";
import {
  V2InboxItem,
  V2InstructionsPutRequest,
  V2Interrupted,
  V2Model,
  type V2OperationId,
  V2PromptRequest,
  V2Session,
  V2SessionCreateRequest,
  v2Operations,
} from "../opencode-protocol/v2/session.js";
import type { Transport } from "../transport/transport.js";
import {
  type ClientCallOptions,
  type ClientStreamOptions,
  OperationCaller,
} from "./operation-caller.js";
import { parseRequest } from "./request-validation.js";

export class Opencode2Client {
  readonly #caller: OperationCaller;

  constructor(transport: Transport, options: { directory?: string } = {}) {
    this.#caller = new OperationCaller(transport, options.directory);
  }

  /** The event stream of the location. */
  readonly event = {
    subscribe: (options: ClientStreamOptions = {}): AsyncIterable<Parsed<V2Event>> =>
      this.#caller.events("event.subscribe", () => ({}), parseV2Event, options),
  };

  readonly model = {
    /** Models of a location; 2.0 takes the location as the `location[directory]` query. */
    list: (input: { directory: string }, options?: ClientCallOptions) =>
      this.#call(
        "model.list",
        { "location[directory]": input.directory },
        z.array(V2Model),
        options,
      ),
  };

  readonly session = {
    create: (input: z.input<typeof V2SessionCreateRequest> = {}, options?: ClientCallOptions) =>
      this.#call(
        "session.create",
        () => parseRequest(V2SessionCreateRequest, input, "session.create"),
        V2Session,
        options,
      ),
    instructions: {
      entry: {
        /** Sets one named entry of the session's instructions (answered 204). */
        put: (
          input: { sessionID: string } & z.input<typeof V2InstructionsPutRequest>,
          options?: ClientCallOptions,
        ) =>
          this.#call(
            "session.instructions.entry.put",
            () => {
              const { sessionID, ...body } = input;
              return {
                sessionID,
                ...parseRequest(V2InstructionsPutRequest, body, "session.instructions.entry.put"),
              };
            },
            z.undefined(),
            options,
          ),
      },
    },
    prompt: (
      input: { sessionID: string } & z.input<typeof V2PromptRequest>,
      options?: ClientCallOptions,
    ) =>
      this.#call(
        "session.prompt",
        () => {
          const { sessionID, ...body } = input;
          return { sessionID, ...parseRequest(V2PromptRequest, body, "session.prompt") };
        },
        V2InboxItem,
        options,
      ),
    interrupt: (input: { sessionID: string }, options?: ClientCallOptions) =>
      this.#call("session.interrupt", { sessionID: input.sessionID }, V2Interrupted, options),
  };

  #call<S extends z.ZodType>(
    operation: V2OperationId,
    input: Record<string, unknown> | (() => Record<string, unknown>),
    schema: S,
    options?: ClientCallOptions,
  ): Promise<z.output<S>> {
    return this.#caller.call(
      operation,
      input,
      { schema, wrapped: v2Operations[operation].wrapped },
      options,
    );
  }
}
