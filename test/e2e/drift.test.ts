/**
 * Drift test: every route, event type and required field the client and the schemas rely
 * on must exist in the real server's own OpenAPI description (`GET /doc`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { apiEventSchemas } from "../../src/opencode-protocol/api/events.js";
import {
  legacyEventSchemas,
  UNDOCUMENTED_LEGACY_EVENTS,
} from "../../src/opencode-protocol/legacy/events.js";
import { KNOWN_PART_TYPES } from "../../src/opencode-protocol/legacy/parts.js";
import { operations } from "../../src/opencode-protocol/operations.js";
import { basicAuthHeader } from "../../src/util/basic-auth.js";
import { type RealServer, startRealServer } from "../support/real-server.js";

const OpenApi = z.looseObject({
  paths: z.record(
    z.string(),
    z.record(z.string(), z.looseObject({ operationId: z.string().optional() })),
  ),
  components: z.looseObject({ schemas: z.record(z.string(), z.unknown()) }),
});
type OpenApi = z.infer<typeof OpenApi>;

/** A JSON-schema object node, as far as this test needs it. */
const SchemaNode = z.looseObject({
  properties: z.record(z.string(), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
  enum: z.array(z.unknown()).optional(),
});

let real: RealServer;
let doc: OpenApi;

beforeAll(async () => {
  real = await startRealServer();
  const response = await fetch(`${real.server.url}/doc`, {
    headers: { authorization: basicAuthHeader("opencode", real.server.password ?? "") },
    signal: AbortSignal.timeout(20_000),
  });
  doc = OpenApi.parse(await response.json());
});
afterAll(async () => {
  await real?.close();
});

/** Every event schema in the document, by the event type its `type` enum names. */
function eventSchemasByType(): Map<string, z.infer<typeof SchemaNode>[]> {
  const byType = new Map<string, z.infer<typeof SchemaNode>[]>();
  for (const raw of Object.values(doc.components.schemas)) {
    const node = SchemaNode.safeParse(raw);
    const typeNode = SchemaNode.safeParse(node.data?.properties?.type);
    for (const value of typeNode.data?.enum ?? []) {
      if (typeof value !== "string" || node.data === undefined) continue;
      byType.set(value, [...(byType.get(value) ?? []), node.data]);
    }
  }
  return byType;
}

/** Names of the fields a zod object requires (those that reject `undefined`). */
function requiredFields(schema: z.ZodType): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
}

function documentedFields(node: z.infer<typeof SchemaNode>, payload: string): Set<string> {
  const inner = SchemaNode.safeParse(node.properties?.[payload]);
  return new Set(Object.keys(inner.data?.properties ?? {}));
}

describe("the client's routes exist in GET /doc", () => {
  it.each(Object.entries(operations))("%s", (operationId, route) => {
    const documented = doc.paths[route.path]?.[route.method.toLowerCase()];
    expect(documented, `${route.method} ${route.path}`).toBeDefined();
    expect(documented?.operationId).toBe(operationId);
  });
});

describe("the event types and the fields we require exist in GET /doc", () => {
  const documentedLegacy = Object.entries(legacyEventSchemas).filter(
    ([type]) => !UNDOCUMENTED_LEGACY_EVENTS.includes(type),
  );

  it("still lacks the events we know to be undocumented (drop them from the list if not)", () => {
    for (const type of UNDOCUMENTED_LEGACY_EVENTS) {
      expect(eventSchemasByType().get(type), type).toBeUndefined();
    }
  });

  it.each(documentedLegacy)("legacy %s", (type, schema) => {
    const documented = eventSchemasByType().get(type) ?? [];
    expect(documented.length, `no schema for ${type}`).toBeGreaterThan(0);
    const ours = requiredFields(schema.shape.properties);
    const fields = new Set(documented.flatMap((node) => [...documentedFields(node, "properties")]));
    for (const field of ours) expect(fields, `${type}.properties.${field}`).toContain(field);
  });

  it.each(Object.entries(apiEventSchemas))("/api %s", (type, schema) => {
    const documented = eventSchemasByType().get(type) ?? [];
    expect(documented.length, `no schema for ${type}`).toBeGreaterThan(0);
    const fields = new Set(documented.flatMap((node) => [...documentedFields(node, "data")]));
    for (const field of requiredFields(schema.shape.data)) {
      expect(fields, `${type}.data.${field}`).toContain(field);
    }
  });

  it("knows the part types the server documents", () => {
    const partTypes = new Set(
      Object.entries(doc.components.schemas)
        .filter(([name]) => name.endsWith("Part") && !name.endsWith("InputPart"))
        .flatMap(([, raw]) => {
          const typeNode = SchemaNode.safeParse(SchemaNode.safeParse(raw).data?.properties?.type);
          return (typeNode.data?.enum ?? []).filter((v): v is string => typeof v === "string");
        }),
    );
    for (const type of KNOWN_PART_TYPES) expect(partTypes, type).toContain(type);
  });
});
