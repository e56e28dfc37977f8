/**
 * Turns an operation call into the URL, headers and body of an HTTP request,
 * following the route table in `protocol/operations.ts`.
 */
import { UsageError } from "../errors.js";
import { isOperationId, type OperationRoute, operations } from "../opencode-protocol/operations.js";
import type { OperationCall } from "./transport.js";

export interface HttpRequestParts {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  route: OperationRoute;
}

export const DIRECTORY_HEADER = "x-opencode-directory";

/** Builds the request for `call` against the server at `baseUrl`. */
export function buildHttpRequest(baseUrl: string, call: OperationCall): HttpRequestParts {
  if (!isOperationId(call.operation)) {
    throw new UsageError(
      `operation ${call.operation} has no HTTP route for OpenCode 1.18.33; ` +
        "use a transport that knows it (a replay of a recording, for example)",
    );
  }
  const route = operations[call.operation];
  const rest: Record<string, unknown> = { ...call.input };

  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    if (typeof value !== "string" || value.length === 0) {
      throw new UsageError(
        `${call.operation} needs a non-empty string "${name}" in its input (got ${JSON.stringify(value)})`,
      );
    }
    delete rest[name];
    return encodeURIComponent(value);
  });

  const url = new URL(`${withTrailingSlashRemoved(baseUrl)}${path}`);
  for (const name of route.query ?? []) {
    const value = rest[name];
    delete rest[name];
    if (value !== undefined) url.searchParams.set(name, String(value));
  }

  const headers: Record<string, string> = { accept: "application/json" };
  if (call.directory !== undefined && route.location !== "none") {
    // Location is per request, not per session (seed 001). The server decodes the header
    // once, so it is sent percent-encoded: paths with spaces or non-ASCII survive.
    headers[DIRECTORY_HEADER] = encodeURIComponent(call.directory);
    if (route.location === "query-location") {
      url.searchParams.set("location[directory]", call.directory);
    }
  }

  let body: string | undefined;
  if (Object.keys(rest).length > 0) {
    if (route.method === "GET" || route.method === "DELETE") {
      throw new UsageError(
        `${call.operation} takes no body, but the input has ${Object.keys(rest).join(", ")}`,
      );
    }
    body = JSON.stringify(rest);
    headers["content-type"] = "application/json";
  }
  return { url, method: route.method, headers, body, route };
}

function withTrailingSlashRemoved(baseUrl: string): string {
  return baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl;
}
