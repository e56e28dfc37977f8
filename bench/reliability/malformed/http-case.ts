/** One malformed HTTP request and the answer docs/sidecar.md documents for it. */
import { ERROR_STATUS, type ErrorCode } from "../../../src/wire/http.js";

export type HttpCaseKind =
  | "bad-json"
  | "wrong-types"
  | "wrong-values"
  | "unknown-id"
  | "long-id"
  | "unknown-route"
  | "bad-resume"
  | "oversize"
  | "oversize-multipart"
  | "token"
  | "bad-host"
  | "bad-origin";

export interface HttpCase {
  kind: HttpCaseKind;
  method: string;
  path: string;
  headers: Record<string, string>;
  /**
   * The body; or a size: that many bytes of a JSON text input; or a multipart input with files
   * of these sizes (boundary `x`); both sent chunked.
   */
  body?: string | { jsonBytes: number } | { multipartFiles: number[] };
  expect: { status: number; code: ErrorCode };
}

/** What the cases are aimed at: the sidecar's port and token, and a session that exists. */
export interface Target {
  port: number;
  token: string;
  sessionId: string;
  /** The limit of a JSON body (the sidecar's `limits.jsonBodyBytes`). */
  jsonBodyBytes: number;
}

export const expecting = (code: ErrorCode) => ({ status: ERROR_STATUS[code], code });

/** The token, and a JSON content type when there is a body. */
export const jsonHeaders = (target: Target, body: string | undefined): Record<string, string> => ({
  authorization: `Bearer ${target.token}`,
  ...(body === undefined ? {} : { "content-type": "application/json" }),
});
