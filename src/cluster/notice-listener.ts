/**
 * The one LISTEN connection of a process: a dedicated Postgres connection (LISTEN cannot go
 * through a pool) on the channel of appended events, reconnected with backoff whenever it
 * breaks. Notices sent while it was down are lost (Postgres keeps none for a listener that is
 * not there), so every (re)connection is announced to `onConnected`, once LISTEN is active,
 * for readers to catch up from the store; `ping` lets a slow poll find a connection that died
 * without a word (a network that drops packets rather than closing).
 */
import pg from "pg";
import type { PostgresTarget } from "../store/postgres/connection.js";
import {
  EVENTS_CHANNEL,
  type EventNotice,
  parseEventNotice,
} from "../store/postgres/event-notices.js";
import { sleep } from "../util/abort.js";
import { describeError } from "../util/describe-error.js";
import type { Logger } from "../util/logger.js";

export interface NoticeListenerHandlers {
  onNotice(notice: EventNotice): void;
  /** LISTEN is active again (or for the first time): notices may have been missed before. */
  onConnected(): void;
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

export class NoticeListener {
  readonly #target: PostgresTarget;
  readonly #handlers: NoticeListenerHandlers;
  readonly #logger: Logger;
  readonly #stop = new AbortController();
  #client: pg.Client | undefined;
  #running: Promise<void> | undefined;
  /** Ends the current connection's wait (its break, or a failed ping). */
  #dropCurrent: (() => void) | undefined;

  constructor(target: PostgresTarget, handlers: NoticeListenerHandlers, logger: Logger) {
    this.#target = target;
    this.#handlers = handlers;
    this.#logger = logger;
  }

  /** Connects and keeps connecting until `close`. */
  start(): void {
    this.#running ??= this.#run();
  }

  /** The server pid of the LISTEN connection, while connected (tests cut it by this). */
  get backendPid(): number | undefined {
    const pid: unknown =
      this.#client === undefined ? undefined : Reflect.get(this.#client, "processID");
    return typeof pid === "number" ? pid : undefined;
  }

  /** Checks the connection answers within `timeoutMs`; one that does not is dropped. */
  async ping(timeoutMs: number): Promise<void> {
    const client = this.#client;
    if (client === undefined) return; // reconnecting already
    try {
      await client.query({ text: "SELECT 1", query_timeout: timeoutMs } as pg.QueryConfig);
    } catch (error) {
      this.#logger.warn("the LISTEN connection did not answer: reconnecting", {
        store: this.#target.description,
        error: describeError(error),
      });
      if (this.#client === client) this.#dropCurrent?.();
    }
  }

  async close(): Promise<void> {
    this.#stop.abort();
    this.#dropCurrent?.();
    await this.#running;
  }

  async #run(): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (!this.#stop.signal.aborted) {
      const client = new pg.Client({
        ...this.#target.config,
        application_name: "opencode-bridge listen",
        keepAlive: true,
      });
      const broken = new Promise<void>((resolve) => {
        this.#dropCurrent = resolve;
        client.on("error", () => resolve());
        client.on("end", () => resolve());
      });
      client.on("notification", (message) => {
        if (message.channel !== EVENTS_CHANNEL) return;
        const notice = parseEventNotice(message.payload);
        if (notice === undefined) {
          this.#logger.warn("ignored a notice of the wrong shape", { channel: message.channel });
          return;
        }
        this.#handlers.onNotice(notice);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
        this.#client = client;
        retryMs = FIRST_RETRY_MS;
        this.#handlers.onConnected();
        await broken;
      } catch (error) {
        this.#logger.warn("the LISTEN connection failed", {
          store: this.#target.description,
          error: describeError(error),
        });
      } finally {
        this.#client = undefined;
        await client.end().catch(() => {});
      }
      if (this.#stop.signal.aborted) break;
      await sleep(retryMs, this.#stop.signal).catch(() => {});
      retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    }
  }
}
