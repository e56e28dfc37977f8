/**
 * The schemas of the OpenAPI document that no REST route carries: the canonical event (each
 * line of a transcript) and the WebSocket messages, generated from the same zod schemas, so a
 * client in another language can generate its types for the streams too.
 */
import { z } from "zod";
import { CanonicalEventSchema } from "../wire/canonical-schema.js";
import { ClientMessageSchema, ServerMessageSchema } from "../wire/ws.js";

export function streamSchemas(): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  registry.add(CanonicalEventSchema, { id: "CanonicalEvent" });
  registry.add(ClientMessageSchema, { id: "WsClientMessage" });
  registry.add(ServerMessageSchema, { id: "WsServerMessage" });
  const { schemas } = z.toJSONSchema(registry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
  });
  // OpenAPI 3.1 components are JSON Schema 2020-12 already: no `$schema`, named by their key.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}
