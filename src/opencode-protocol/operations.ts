/**
 * The OpenCode operations the client uses, by their OpenAPI operation id, and how
 * each maps onto HTTP. The client speaks in operation ids and flat inputs; only
 * the HTTP transport reads this table. `npm test` checks every entry against the
 * real server's `GET /doc` (the drift test).
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface OperationRoute {
  method: HttpMethod;
  /** Path template with `{name}` placeholders filled from the input. */
  path: string;
  /** Input fields sent as query parameters (the rest, minus path fields, is the JSON body). */
  query?: readonly string[];
  /**
   * How the location (project directory) is carried. The `x-opencode-directory` header works on
   * every route and is decoded exactly once by the server; `query-location` also adds the
   * `location[directory]` query that some `/api` GETs declare.
   */
  location: "header" | "query-location" | "none";
  /** `/api/*` responses wrap their payload in `{ data }`. */
  wrapped: boolean;
  /** The operation answers with an event stream. */
  stream?: true;
}

const legacy = (
  method: HttpMethod,
  path: string,
  extra: Partial<OperationRoute> = {},
): OperationRoute => ({
  method,
  path,
  location: "header",
  wrapped: false,
  ...extra,
});

const api = (
  method: HttpMethod,
  path: string,
  extra: Partial<OperationRoute> = {},
): OperationRoute => ({ method, path, location: "header", wrapped: true, ...extra });

export const operations = {
  // Legacy surface: bare JSON bodies.
  "global.health": legacy("GET", "/global/health", { location: "none" }),
  "config.get": legacy("GET", "/config"),
  "config.providers": legacy("GET", "/config/providers"),
  "event.subscribe": legacy("GET", "/event", { stream: true }),
  "session.create": legacy("POST", "/session"),
  "session.list": legacy("GET", "/session", { query: ["roots", "limit", "search"] }),
  "session.get": legacy("GET", "/session/{sessionID}"),
  "session.delete": legacy("DELETE", "/session/{sessionID}"),
  "session.status": legacy("GET", "/session/status"),
  "session.messages": legacy("GET", "/session/{sessionID}/message", { query: ["limit"] }),
  "session.children": legacy("GET", "/session/{sessionID}/children"),
  "session.prompt": legacy("POST", "/session/{sessionID}/message"),
  "session.prompt_async": legacy("POST", "/session/{sessionID}/prompt_async"),
  "session.abort": legacy("POST", "/session/{sessionID}/abort"),
  "session.summarize": legacy("POST", "/session/{sessionID}/summarize"),
  "permission.list": legacy("GET", "/permission"),
  "permission.reply": legacy("POST", "/permission/{requestID}/reply"),
  "question.list": legacy("GET", "/question"),
  "question.reply": legacy("POST", "/question/{requestID}/reply"),
  "question.reject": legacy("POST", "/question/{requestID}/reject"),
  "command.list": legacy("GET", "/command"),
  "mcp.status": legacy("GET", "/mcp"),
  "app.skills": legacy("GET", "/skill"),
  "session.todo": legacy("GET", "/session/{sessionID}/todo"),
  "vcs.get": legacy("GET", "/vcs"),
  "vcs.status": legacy("GET", "/vcs/status"),
  "vcs.diff": legacy("GET", "/vcs/diff", { query: ["mode", "context"] }),

  // The `/api` surface: `{ data }` bodies, location per request.
  // The one /api route that answers without the `{data}` wrapper.
  "v2.health.get": api("GET", "/api/health", { location: "none", wrapped: false }),
  "v2.model.list": api("GET", "/api/model", { location: "query-location" }),
  "v2.provider.get": api("GET", "/api/provider/{providerID}", { location: "query-location" }),
  "v2.agent.list": api("GET", "/api/agent", { location: "query-location" }),
  "v2.session.create": api("POST", "/api/session"),
  "v2.pty.list": api("GET", "/api/pty"),
  "v2.pty.create": api("POST", "/api/pty"),
  "v2.pty.update": api("PUT", "/api/pty/{ptyID}"),
  "v2.pty.remove": api("DELETE", "/api/pty/{ptyID}"),
  // A WebSocket: `Transport.socketRequest` gives its URL and headers.
  "v2.pty.connect": api("GET", "/api/pty/{ptyID}/connect"),
  "v2.session.list": api("GET", "/api/session", { query: ["limit", "order", "cursor", "search"] }),
  "v2.session.get": api("GET", "/api/session/{sessionID}"),
  "v2.session.active": api("GET", "/api/session/active"),
  "v2.session.prompt": api("POST", "/api/session/{sessionID}/prompt"),
  "v2.session.interrupt": api("POST", "/api/session/{sessionID}/interrupt"),
  "v2.session.switchModel": api("POST", "/api/session/{sessionID}/model"),
  "v2.session.switchAgent": api("POST", "/api/session/{sessionID}/agent"),
  "v2.session.messages": api("GET", "/api/session/{sessionID}/message", {
    query: ["limit", "order", "cursor"],
    // The page's cursor sits beside `data`: the whole body is read.
    wrapped: false,
  }),
  "v2.session.revert.stage": api("POST", "/api/session/{sessionID}/revert/stage"),
  "v2.session.revert.commit": api("POST", "/api/session/{sessionID}/revert/commit"),
  "v2.session.revert.clear": api("POST", "/api/session/{sessionID}/revert/clear"),
  "v2.session.events": api("GET", "/api/session/{sessionID}/event", {
    query: ["after"],
    stream: true,
  }),
  "v2.event.subscribe": api("GET", "/api/event", { stream: true }),
  "v2.session.permission.list": api("GET", "/api/session/{sessionID}/permission"),
  "v2.session.permission.reply": api(
    "POST",
    "/api/session/{sessionID}/permission/{requestID}/reply",
  ),
  "v2.session.question.reply": api("POST", "/api/session/{sessionID}/question/{requestID}/reply"),
  "v2.session.question.reject": api("POST", "/api/session/{sessionID}/question/{requestID}/reject"),
} as const satisfies Record<string, OperationRoute>;

export type OperationId = keyof typeof operations;

/** True for the operation ids of OpenCode 1.18.33 this library knows. */
export function isOperationId(operation: string): operation is OperationId {
  return Object.hasOwn(operations, operation);
}
