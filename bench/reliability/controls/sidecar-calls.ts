/**
 * The controls scenario's calls to whichever sidecar runs now (its URL changes with every
 * restart). A send or a command run carries an idempotency key: the client may cut it mid-request
 * and send it again with the same key, as one that lost its connection does. Undo, redo and
 * fork carry none, so they are sent whole (a client that lost their answer reads the session's
 * events to learn whether they happened). Every answer that is not the expected one is counted.
 */
import { randomUUID } from "node:crypto";

/** Bound on one call: a fork or an undo walks OpenCode's messages, on a loaded machine. */
const CALL_BOUND_MS = 60_000;

export interface CallTally {
  /** Requests cut mid-flight by the client, then sent again with their key. */
  cut: number;
  /** Answers other than the expected status, by status (0: no answer). */
  refused: Map<number, number>;
  /** The first refusal's body, to say what went wrong. */
  firstRefusal?: string;
}

export interface SidecarTarget {
  /** The sidecar running now. */
  url: string;
  auth: { authorization: string };
}

export class SidecarCalls {
  readonly tally: CallTally = { cut: 0, refused: new Map() };
  constructor(readonly target: SidecarTarget) {}

  /** POST with the expected status; the answer's JSON, or undefined when refused. */
  async post(
    path: string,
    body: Record<string, unknown> | undefined,
    expected: number,
    options: { cutAfterMs?: number } = {},
  ): Promise<Record<string, unknown> | undefined> {
    if (options.cutAfterMs !== undefined) {
      try {
        await this.#fetch(path, body, AbortSignal.timeout(options.cutAfterMs));
        // Answered before the cut: the retry below must answer the same.
      } catch {
        this.tally.cut++;
      }
    }
    let answer: { status: number; json: Record<string, unknown> };
    try {
      answer = await this.#fetch(path, body, AbortSignal.timeout(CALL_BOUND_MS));
    } catch (error) {
      this.#refused(0, String(error));
      return undefined;
    }
    if (answer.status !== expected) {
      this.#refused(answer.status, `${path}: ${JSON.stringify(answer.json)}`);
      return undefined;
    }
    return answer.json;
  }

  /** A send (or a command run, `path` its route) with a fresh idempotency key. */
  async keyed(
    path: string,
    body: Record<string, unknown>,
    cutAfterMs: number | undefined,
  ): Promise<{ turnId: string; inputId: string } | undefined> {
    const keyedBody = { ...body, idempotencyKey: randomUUID() };
    const json = await this.post(
      path,
      keyedBody,
      202,
      cutAfterMs === undefined ? {} : { cutAfterMs },
    );
    if (json === undefined) return undefined;
    return { turnId: String(json.turnId), inputId: String(json.inputId) };
  }

  async get(path: string): Promise<unknown> {
    const response = await fetch(`${this.target.url}${path}`, {
      headers: this.target.auth,
      signal: AbortSignal.timeout(CALL_BOUND_MS),
    });
    return await response.json();
  }

  #refused(status: number, why: string): void {
    this.tally.refused.set(status, (this.tally.refused.get(status) ?? 0) + 1);
    this.tally.firstRefusal ??= why;
  }

  async #fetch(path: string, body: Record<string, unknown> | undefined, signal: AbortSignal) {
    const response = await fetch(`${this.target.url}${path}`, {
      method: "POST",
      headers: {
        ...this.target.auth,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    const text = await response.text();
    return {
      status: response.status,
      json: (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>,
    };
  }
}
