/**
 * The sessions this sidecar follows, by id: created here, or opened (adopted) from the store on
 * the first request that names them. Concurrent requests for one kept session open it once.
 * Each open session has one watcher reading its events for the operations side (turns by
 * outcome, upstream reconnects, the model in use, a log line per turn end).
 */
import type { ModelRef } from "../events/canonical.js";
import type { Bridge, UpstreamSessionInfo } from "../runtime/bridge/bridge.js";
import type { ChildSession, Session } from "../runtime/session/session.js";
import type { SessionRecord, Store } from "../store/store.js";
import type { Logger } from "../util/logger.js";
import type { SessionInfo } from "../wire/http.js";
import { ApiError } from "./errors.js";
import { DirectoryGoneError, directoryGone } from "./local-directories.js";
import type { SidecarMetrics } from "./metrics.js";
import { refusedToLead, type SessionCluster } from "./session-cluster.js";
import { type SessionPageQuery, sessionPage } from "./session-pages.js";
import { childOf, recordInfo } from "./session-records.js";
import type { FeedSource } from "./streams/feed-types.js";

interface Followed {
  session: Session;
  model: ModelRef | undefined;
  /** The agent of its latest step or switch (none seen yet: absent). */
  agent?: string;
  /** Stops the watcher. */
  stop: AbortController;
}

export class OpenSessions {
  readonly #bridge: Bridge;
  readonly #metrics: SidecarMetrics;
  readonly #logger: Logger;
  readonly #open = new Map<string, Followed>();
  /** Opens under way, so that two requests for one kept session share one open. */
  readonly #opening = new Map<string, Promise<Session>>();
  #closed = false;

  readonly #store: Store | undefined;
  /** In a cluster: leases before driving, remote sessions from the durable feed. */
  readonly #cluster: SessionCluster | undefined;

  constructor(
    bridge: Bridge,
    metrics: SidecarMetrics,
    logger: Logger,
    store?: Store,
    cluster?: SessionCluster,
  ) {
    this.#bridge = bridge;
    this.#store = store;
    this.#metrics = metrics;
    this.#logger = logger;
    this.#cluster = cluster;
    metrics.readDeltaStatsFrom(() => this.#deltaStats());
    cluster?.onStoppedDriving(({ sessionId, reason }) => {
      void this.#stopDriving(sessionId, reason);
    });
  }

  /** The open session `id`, if this sidecar follows it now. */
  peek(id: string): Session | undefined {
    return this.#open.get(id)?.session;
  }

  /** Ids of the sessions followed now. */
  ids(): string[] {
    return [...this.#open.keys()];
  }

  /**
   * The session `id`, opened from the store (adopted) if need be. `not_found` when the store
   * has no such session; `conflict` when it was killed or runs on another backend.
   */
  async open(id: string, options: { signal?: AbortSignal } = {}): Promise<Session> {
    const open = this.peek(id);
    if (open !== undefined) return open;
    this.#throwIfClosed();
    const record = await this.record(id);
    if (record === undefined) {
      throw new ApiError(
        "not_found",
        `no session ${JSON.stringify(id)}; list them with GET /v1/sessions`,
      );
    }
    if (record.state === "killed") {
      throw new ApiError("conflict", `session ${id} was killed; it cannot be opened again`);
    }
    if (record.backend !== this.#bridge.backend) {
      throw new ApiError(
        "conflict",
        `session ${id} runs on the ${record.backend} backend, this sidecar on ${this.#bridge.backend}; ` +
          `start \`ocb serve --backend ${record.backend}\` to open it`,
      );
    }
    let opening = this.#opening.get(id);
    if (opening === undefined) {
      opening = this.#adopt(record, options.signal).finally(() => this.#opening.delete(id));
      this.#opening.set(id, opening);
    }
    return await opening;
  }

  /**
   * Opens a kept session on the bridge; in a cluster, once its lease is this sidecar's (and
   * its directory this sidecar's server's). One whose directory is gone is not opened: its
   * streams would only meet OpenCode's 500s, reconnecting for ever (`DirectoryGoneError`).
   */
  async #adopt(record: SessionRecord, signal: AbortSignal | undefined): Promise<Session> {
    const { id, directory } = record;
    const cluster = this.#cluster;
    await cluster?.lead(id, { directory, ...(signal === undefined ? {} : { signal }) });
    try {
      if (await directoryGone(this.#bridge, directory)) throw new DirectoryGoneError(id, directory);
      const session = await this.#bridge.openSession(id, signal === undefined ? {} : { signal });
      return this.#follow(session, undefined);
    } catch (error) {
      await cluster?.letGo(id).catch(() => {});
      throw error;
    }
  }

  /**
   * What a stream of `id` reads: the session (opened as `open` does), or, when no session has
   * that id, the child session of a subagent of a session followed now (`subagent.started`
   * named it). A child of a kept session is found once its parent is opened.
   */
  async source(id: string, options: { signal?: AbortSignal } = {}): Promise<FeedSource> {
    const open = this.peek(id);
    if (open !== undefined) return open;
    if ((await this.record(id)) === undefined) {
      const child = this.childOfOpen(id);
      if (child !== undefined) return child;
      throw new ApiError(
        "not_found",
        `no session ${JSON.stringify(id)}; list them with GET /v1/sessions ` +
          "(a subagent's child session is found while its parent session is open: GET /v1/sessions/<parent> opens it)",
      );
    }
    const cluster = this.#cluster;
    if (cluster === undefined) return await this.open(id, options);
    // In a cluster, a session another sidecar drives is read from the durable feed; one
    // nobody drives is opened here (as one sidecar does), unless another was faster or its
    // directory is another server's (its sidecars will drive it; meanwhile it is followed).
    if (await cluster.drivenElsewhere(id)) return await cluster.remoteSource(id);
    try {
      return await this.open(id, options);
    } catch (error) {
      if (refusedToLead(error)) return await cluster.remoteSource(id);
      throw error;
    }
  }

  /** The child session `childId` of a subagent of an open session, if one has it. */
  childOfOpen(childId: string): ChildSession | undefined {
    for (const { session } of this.#open.values()) {
      const child = childOf(session, childId);
      if (child !== undefined) return child;
    }
    return undefined;
  }

  /** Creates a session on the bridge and follows it. */
  async create(options: {
    directory?: string;
    title?: string;
    model?: ModelRef;
    signal?: AbortSignal;
  }): Promise<Session> {
    this.#throwIfClosed();
    const cluster = this.#cluster;
    await cluster?.serveDirectory(options.directory ?? this.#bridge.directory);
    const session = await this.#bridge.createSession({
      ...options,
      ...(cluster === undefined ? {} : { claim: (id: string) => cluster.lead(id) }),
    });
    return this.#follow(session, options.model ?? this.#bridge.defaultModel);
  }

  /**
   * Forks `originId` before its input `inputId` (`Bridge.forkSession`) and follows the fork; in
   * a cluster, this sidecar leads it, as a session it creates.
   */
  async fork(
    originId: string,
    inputId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Session> {
    this.#throwIfClosed();
    const origin = await this.#recordOrNotFound(originId);
    const cluster = this.#cluster;
    await cluster?.serveDirectory(origin.directory);
    const session = await this.#bridge.forkSession(originId, inputId, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(cluster === undefined ? {} : { claim: (id: string) => cluster.lead(id) }),
    });
    return this.#follow(session, this.#bridge.defaultModel);
  }

  /**
   * Imports the user's OpenCode session `upstreamId` (`Bridge.importSession`) and follows it;
   * `accept` refuses it before anything is kept (a directory not allowed). In a cluster, this
   * sidecar leads it, as a session it creates. One imported before is opened as any kept
   * session is (`imported: false`).
   */
  async import(
    upstreamId: string,
    options: {
      directory?: string;
      accept: (info: UpstreamSessionInfo) => Promise<void>;
      signal?: AbortSignal;
    },
  ): Promise<{ session: Session; imported: boolean }> {
    this.#throwIfClosed();
    if ((await this.record(upstreamId)) !== undefined) {
      return { session: await this.open(upstreamId, options), imported: false };
    }
    const cluster = this.#cluster;
    const { session, imported } = await this.#bridge.importSession(upstreamId, {
      ...(options.directory === undefined ? {} : { directory: options.directory }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      accept: async (info) => {
        await options.accept(info);
        await cluster?.serveDirectory(info.directory);
      },
      ...(cluster === undefined ? {} : { claim: (id: string) => cluster.lead(id) }),
    });
    return { session: this.#follow(session, this.#bridge.defaultModel), imported };
  }

  /**
   * Continues `id` in a new OpenCode session after its own was lost (`Bridge.continueSession`):
   * the session followed until now (if any) is let go, the continued one followed.
   */
  async continue(id: string, options: { signal?: AbortSignal } = {}): Promise<Session> {
    this.#throwIfClosed();
    const record = await this.#recordOrNotFound(id);
    if (!this.#open.has(id)) await this.#cluster?.lead(id, { directory: record.directory });
    // Its watcher stops now: the bridge closes the session, and this one must not reopen it.
    const followed = this.#open.get(id);
    this.#forget(id);
    let session: Session;
    try {
      session = await this.#bridge.continueSession(
        id,
        options.signal === undefined ? {} : { signal: options.signal },
      );
    } catch (error) {
      // Refused (its OpenCode session is there): still followed. Closed by then: the watcher
      // lets it go at once, and the next request opens it again.
      if (followed !== undefined) this.#followAgain(followed, followed.session);
      throw error;
    }
    return this.#follow(session, this.#bridge.defaultModel);
  }

  /**
   * Compacts `id`'s history (`Bridge.compactSession`). On `serve` the session goes on in a new
   * OpenCode session: the one followed until then is let go right before the swap, the new one
   * followed; refused or failed before it, the session stays followed as it was.
   */
  async compact(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.open(id, options);
    let followed: Followed | undefined;
    try {
      const session = await this.#bridge.compactSession(id, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        beforeSwap: () => {
          followed = this.#open.get(id);
          this.#forget(id);
        },
      });
      if (followed !== undefined) this.#followAgain(followed, session);
    } catch (error) {
      // Let go and the swap failed: followed again (closed by then, its watcher lets it go).
      if (followed !== undefined && this.peek(id) === undefined) {
        this.#followAgain(followed, followed.session);
      }
      throw error;
    }
  }

  /** Follows `session` with what was known of `followed` (its model, its agent). */
  #followAgain(followed: Followed, session: Session): void {
    this.#follow(session, followed.model);
    if (followed.agent !== undefined) this.noteAgent(session.id, followed.agent);
  }

  async #recordOrNotFound(id: string): Promise<SessionRecord> {
    const record = await this.record(id);
    if (record !== undefined) return record;
    throw new ApiError(
      "not_found",
      `no session ${JSON.stringify(id)}; list them with GET /v1/sessions`,
    );
  }

  /** Stops following `id` (the upstream session is kept; it can be opened again). */
  async release(id: string): Promise<void> {
    const followed = this.#open.get(id);
    if (followed === undefined) return;
    this.#forget(id);
    await this.#bridge.releaseSession(followed.session);
    await this.#cluster?.letGo(id);
  }

  /** Ends `id` for good, upstream too (its transcript stays in the store). */
  async kill(id: string, options: { signal?: AbortSignal } = {}): Promise<void> {
    const session = await this.open(id, options);
    await this.#bridge.killSession(session, options);
    this.#forget(id);
    await this.#cluster?.letGo(id);
  }

  /**
   * The cluster says this sidecar no longer drives `id` (its lease was lost or taken, or an
   * append was refused): its session stops at once, without a word upstream (the running
   * turn is the new driver's to adopt and end). Subscribers here are told the session closed;
   * subscribing again reads it from the durable feed.
   */
  async #stopDriving(id: string, reason: string): Promise<void> {
    const followed = this.#open.get(id);
    if (followed === undefined) return;
    this.#forget(id);
    this.#logger.warn("stopped driving a session: its lease is no longer this sidecar's", {
      sessionId: id,
      reason,
    });
    try {
      await this.#bridge.detachSession(followed.session);
    } catch (error) {
      this.#logger.warn("stopping a session whose lease was lost failed", { sessionId: id, error });
    }
  }

  /** The store's record of `id`. */
  async record(id: string): Promise<SessionRecord | undefined> {
    if (this.#store !== undefined) return this.#store.session(id);
    return (await this.#bridge.sessions()).find((record) => record.id === id);
  }

  /** What a client is told about a session, open or kept. */
  async info(id: string): Promise<SessionInfo> {
    // What it has received counts: its last events are read once committed.
    await this.#open.get(id)?.session.settled();
    const record = await this.record(id);
    const followed = this.#open.get(id);
    if (followed === undefined) {
      if (record === undefined) throw new ApiError("not_found", `no session ${JSON.stringify(id)}`);
      const lastActivityAt = await this.#lastActivityAt(id);
      return {
        ...recordInfo(record),
        sandbox: this.#bridge.sandbox,
        lastSeq: (await this.#store?.lastSeq(id)) ?? 0,
        ...(lastActivityAt === undefined ? {} : { lastActivityAt }),
        ...((await directoryGone(this.#bridge, record.directory)) && { directoryMissing: true }),
      };
    }
    const { session } = followed;
    const lastActivityAt = await this.#lastActivityAt(id, session);
    return {
      ...(record === undefined ? {} : recordInfo(record)),
      id: session.id,
      directory: session.directory,
      backend: session.backend,
      open: true,
      state: "open",
      running: session.runningTurn !== undefined,
      lastSeq: session.lastSeq,
      ...(lastActivityAt === undefined ? {} : { lastActivityAt }),
      ...((await directoryGone(this.#bridge, session.directory)) && { directoryMissing: true }),
      capabilities: { ...session.capabilities },
      sandbox: this.#bridge.sandbox,
      ...(followed.model === undefined ? {} : { model: followed.model }),
      ...(followed.agent === undefined ? {} : { agent: followed.agent }),
      ...(session.forkedFrom === undefined ? {} : { forkedFrom: session.forkedFrom }),
      pendingAsks: session.pendingAsks.map((ask) => ({
        kind: ask.kind,
        requestId: ask.requestId,
        ...(ask.turnId === undefined ? {} : { turnId: ask.turnId }),
      })),
    };
  }

  /** When the session's last durable event happened: its last event only is read. */
  async #lastActivityAt(id: string, open?: Session): Promise<number | undefined> {
    const store = this.#store;
    if (store === undefined) return (await open?.transcript())?.at(-1)?.at;
    const lastSeq = await store.lastSeq(id);
    if (lastSeq === 0) return undefined;
    return (await store.read(id, { after: lastSeq - 1, limit: 1 }))[0]?.at;
  }

  /**
   * The sessions kept in the store, with the open ones' live state: all of them, oldest
   * first, or the page `query` asks for (only that page is described).
   */
  async list(
    query: SessionPageQuery = {},
  ): Promise<{ sessions: SessionInfo[]; nextCursor?: string }> {
    const page = await sessionPage((asked) => this.#bridge.sessions(asked), query);
    return {
      sessions: await Promise.all(page.records.map((record) => this.info(record.id))),
      ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
    };
  }

  /** Renames a session in the store (OpenCode's client has no rename: the title is the bridge's). */
  async rename(id: string, title: string): Promise<void> {
    const store = this.#store;
    if (store === undefined) {
      throw new ApiError(
        "unsupported",
        "this sidecar was started without the bridge's store; it cannot rename",
      );
    }
    const record = await store.session(id);
    if (record === undefined) throw new ApiError("not_found", `no session ${JSON.stringify(id)}`);
    await store.saveSession({ ...record, title, updatedAt: Date.now() });
  }

  /** The model a session uses, as far as the sidecar knows (set on create and switch). */
  noteModel(id: string, model: ModelRef): void {
    const followed = this.#open.get(id);
    if (followed !== undefined) followed.model = model;
  }

  /** The agent switched to, shown at once (its `agent.switched` follows on the stream). */
  noteAgent(id: string, agent: string): void {
    const followed = this.#open.get(id);
    if (followed !== undefined) followed.agent = agent;
  }

  /**
   * Stops the watchers and refuses new opens. The sessions stay open: the bridge's owner closes
   * them (running turns are left to the store, to be adopted by the next bridge).
   */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#open.keys()]) this.#forget(id);
  }

  /** The open sessions' delta stats, summed field by field (whatever counts the runtime keeps). */
  #deltaStats(): Record<string, number> {
    const sum: Record<string, number> = {};
    for (const { session } of this.#open.values()) {
      for (const [key, value] of Object.entries(session.stats().deltas)) {
        if (typeof value === "number") sum[key] = (sum[key] ?? 0) + value;
      }
    }
    return sum;
  }

  #follow(session: Session, model: ModelRef | undefined): Session {
    const existing = this.#open.get(session.id);
    if (existing !== undefined) return existing.session;
    const followed: Followed = { session, model, stop: new AbortController() };
    this.#open.set(session.id, followed);
    this.#metrics.openSessions.set(this.#open.size);
    void this.#watch(followed);
    return session;
  }

  #forget(id: string): void {
    this.#open.get(id)?.stop.abort();
    this.#open.delete(id);
    this.#metrics.openSessions.set(this.#open.size);
  }

  /** Reads the session's new events until it closes or is forgotten. */
  async #watch(followed: Followed): Promise<void> {
    const { session, stop } = followed;
    const after = session.lastSeq;
    let reconnecting = false;
    try {
      for await (const event of session.events({ after, signal: stop.signal })) {
        // Only a few types matter here: ifs, not a switch that would list all of them.
        if (event.type === "turn.ended") {
          this.#metrics.turns.inc({ outcome: event.data.outcome });
          this.#logger.info("turn ended", {
            sessionId: session.id,
            turnId: event.turnId,
            outcome: event.data.outcome,
            ...(event.data.reason === undefined ? {} : { reason: event.data.reason }),
            ...(event.data.usage === undefined ? {} : { cost: event.data.usage.cost }),
          });
        } else if (event.type === "connection.changed") {
          if (event.data.state === "reconnecting") reconnecting = true;
          else if (reconnecting) {
            reconnecting = false;
            this.#metrics.upstreamReconnects.inc();
          }
        } else if (event.type === "model.switched") {
          followed.model = event.data.model;
        } else if (event.type === "agent.switched") {
          followed.agent = event.data.agent;
        } else if (event.type === "step.started") {
          if (event.data.model !== undefined) followed.model = event.data.model;
          if (event.data.agent !== undefined) followed.agent = event.data.agent;
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) {
        this.#logger.warn("watching a session's events failed", { sessionId: session.id, error });
      }
    }
    // Closed by someone else (the bridge's idle release, its close): the next request opens it
    // again instead of finding a closed session.
    if (!stop.signal.aborted && this.#open.get(session.id) === followed) {
      this.#forget(session.id);
      // Released by the bridge (idle): nobody drives it now, so nobody should hold its lease.
      await this.#cluster?.letGo(session.id).catch(() => {});
    }
  }

  #throwIfClosed(): void {
    if (this.#closed)
      throw new ApiError("unavailable", "the sidecar is stopping; try again once it is back");
  }
}
