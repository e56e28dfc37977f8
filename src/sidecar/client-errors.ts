/**
 * A request not received within the receive timeout (`limits.receiveTimeoutMs`: headers or a
 * body trickled slowly), or bytes that are not HTTP: answered in the API's error shape (408
 * `request_timeout`, 400 `invalid_request`), written on the connection, which is then closed
 * (what is left of the request cannot be read).
 *
 * Node bounds the headers itself (its `requestTimeout`, reported to `clientErrorHandler`), but
 * not a body once the request reached the application: `receiveDeadline` bounds that.
 */
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError } from "./errors.js";

/** The answer Node lets us write on the socket, if nothing was written on it yet. */
interface InFlight {
  _httpMessage?: { headersSent?: boolean } | null;
}

export function receiveTimeoutError(receiveTimeoutMs: number): ApiError {
  return new ApiError(
    "request_timeout",
    `the request was not received within ${receiveTimeoutMs / 1000} s; send its headers and body without pausing`,
  );
}

function clientErrorAnswer(error: { code?: unknown }, receiveTimeoutMs: number): ApiError {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return receiveTimeoutError(receiveTimeoutMs);
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        "invalid_request",
        "the request's headers are too large (16 KiB in all); send fewer or shorter ones",
      );
    default:
      return new ApiError("invalid_request", "the request is not valid HTTP/1.1");
  }
}

/** Writes `error` as the connection's answer (unless one was started) and closes it. */
function answerAndClose(socket: Socket, error: ApiError): void {
  const answered = (socket as Socket & InFlight)._httpMessage?.headersSent === true;
  if (socket.writable && !answered) {
    const body = JSON.stringify(error.body());
    socket.write(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}\r\n` +
        "Content-Type: application/json; charset=utf-8\r\n" +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's `clientErrorHandler`: Node's own errors, before any route. */
export function clientErrorHandler(receiveTimeoutMs: number) {
  return (error: Error & { code?: unknown }, socket: Socket): void => {
    // A reset connection is gone: there is no one to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    answerAndClose(socket, clientErrorAnswer(error, receiveTimeoutMs));
  };
}

/**
 * An `onRequest` hook bounding the body: a request whose body has not all arrived within
 * `receiveTimeoutMs` of its headers is answered 408 and its connection closed. `timedOut`
 * tells the error handler that the route's failure to read the body is this, not a bug.
 */
export function receiveDeadline(receiveTimeoutMs: number) {
  const timedOut = new WeakSet<IncomingMessage>();
  const hook = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const raw = request.raw;
    // A WebSocket handshake has no body, and its connection is the socket's afterwards.
    if (raw.complete || request.headers.upgrade !== undefined) return;
    const timer = setTimeout(() => {
      if (raw.complete || reply.raw.headersSent || raw.socket.destroyed) return;
      timedOut.add(raw);
      answerAndClose(raw.socket, receiveTimeoutError(receiveTimeoutMs));
    }, receiveTimeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once("end", clear);
    reply.raw.once("close", clear);
  };
  return { hook, timedOut: (request: FastifyRequest) => timedOut.has(request.raw) };
}
