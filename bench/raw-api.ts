/**
 * The `/api` routes the benchmarks call without the bridge: plain `fetch`, Basic auth, the
 * location header, and a minimal SSE line parser. This is the baseline the bridge is compared
 * with, so it does only what a hand-written client would.
 */
import { basicAuthHeader } from "../src/util/basic-auth.js";

export interface RawApiOptions {
  url: string;
  password: string | undefined;
  directory: string;
}

/** The fields of an `/api` frame the benchmarks look at. */
export interface FrameSummary {
  id: string | undefined;
  type: string;
  sessionID: string | undefined;
  finish: string | undefined;
}

/** Reads the few fields the benchmarks need from one JSON frame; `undefined` if it is not one. */
export function summarizeFrame(text: string): FrameSummary | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.type !== "string") return undefined;
  const data = isRecord(value.data) ? value.data : {};
  return {
    id: typeof value.id === "string" ? value.id : undefined,
    type: value.type,
    sessionID: typeof data.sessionID === "string" ? data.sessionID : undefined,
    finish: typeof data.finish === "string" ? data.finish : undefined,
  };
}

export class RawApi {
  readonly #url: string;
  readonly #directory: string;
  readonly #authorization: string | undefined;

  constructor(options: RawApiOptions) {
    this.#url = options.url;
    this.#directory = options.directory;
    this.#authorization =
      options.password === undefined ? undefined : basicAuthHeader("opencode", options.password);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      "x-opencode-directory": encodeURIComponent(this.#directory),
      ...(this.#authorization === undefined ? {} : { authorization: this.#authorization }),
      ...extra,
    };
  }

  /** `POST /api/session`: a fresh session on `model`; its id. */
  async createSession(
    model: { providerID: string; modelID: string },
    signal: AbortSignal,
  ): Promise<string> {
    const body = await this.#postJson(
      "/api/session",
      {
        model: { providerID: model.providerID, id: model.modelID },
        location: { directory: this.#directory },
      },
      signal,
    );
    const id = isRecord(body) && isRecord(body.data) ? body.data.id : undefined;
    if (typeof id !== "string")
      throw new Error(`POST /api/session: no session id in ${JSON.stringify(body)}`);
    return id;
  }

  /** `POST /api/session/{id}/prompt` with `queue`; the seq the admission got. */
  async prompt(sessionId: string, text: string, signal: AbortSignal): Promise<number> {
    const body = await this.#postJson(
      `/api/session/${encodeURIComponent(sessionId)}/prompt`,
      { prompt: { text }, delivery: "queue" },
      signal,
    );
    const seq = isRecord(body) && isRecord(body.data) ? body.data.admittedSeq : undefined;
    if (typeof seq !== "number")
      throw new Error(`prompt: no admittedSeq in ${JSON.stringify(body)}`);
    return seq;
  }

  /**
   * Reads the durable stream after `after` until a step ends with a finish other than
   * `tool-calls` (the end of a 1.18 turn); throws on `step.failed`. `signal` bounds the wait.
   */
  async waitForTurnEnd(sessionId: string, after: number, signal: AbortSignal): Promise<void> {
    const path = `/api/session/${encodeURIComponent(sessionId)}/event?after=${after}`;
    const response = await fetch(`${this.#url}${path}`, {
      headers: this.headers({ accept: "text/event-stream" }),
      signal,
    });
    if (!response.ok || response.body === null) {
      throw new Error(`GET ${path}: HTTP ${response.status} ${await response.text()}`);
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error(`GET ${path}: the stream ended before the turn did`);
        buffer += decoder.decode(chunk.value, { stream: true });
        let newline = buffer.indexOf("\n");
        while (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf("\n");
          if (!line.startsWith("data:")) continue;
          const frame = summarizeFrame(line.slice(5).trim());
          if (frame?.type === "session.next.step.failed") throw new Error(`${path}: step failed`);
          if (frame?.type === "session.next.step.ended" && frame.finish !== "tool-calls") return;
        }
      }
    } finally {
      await reader.cancel().catch(() => {
        // Already errored by the signal: nothing left to release.
      });
    }
  }

  async #postJson(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    const response = await fetch(`${this.#url}${path}`, {
      method: "POST",
      headers: this.headers({ "content-type": "application/json" }),
      body: JSON.stringify(body),
      signal,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path}: HTTP ${response.status} ${text}`);
    const parsed: unknown = JSON.parse(text);
    return parsed;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
