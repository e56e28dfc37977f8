/**
 * The bridge: owns the way turns run (an OpenCode server, started and supervised or attached,
 * or `opencode run` processes), and the sessions on it. With a `modelServer` (the scripted demo
 * model, from `opencode-bridge/testing`) it also runs that, so it works offline.
 */

import { randomUUID } from "node:crypto";
import { type AgentInfo, listAgents } from "../../backends/agents.js";
import type { BackendKind } from "../../backends/backend.js";
import { backendEvent } from "../../backends/backend-event.js";
import { BACKEND_CAPABILITIES, type Capabilities } from "../../backends/capabilities.js";
import { type CommandInfo, listCommands } from "../../backends/commands.js";
import { listMcpServers, type McpServerInfo } from "../../backends/mcp-servers.js";
import { checkModelTakes } from "../../backends/model-attachments.js";
import { reconnectLiveStreams } from "../../backends/serve/live-stream.js";
import { ServeBackend } from "../../backends/serve/serve-backend.js";
import { LegacyBackend } from "../../backends/serve-legacy/legacy-backend.js";
import { listSkills, type SkillInfo } from "../../backends/skills.js";
import { SubprocessBackend } from "../../backends/subprocess/subprocess-backend.js";
import { AbortError, UsageError } from "../../errors.js";
import type { CanonicalEvent, ModelRef } from "../../events/canonical.js";
import { legacyHistory } from "../../events/legacy-history.js";
import type { OpencodeClient } from "../../opencode-client/opencode-client.js";
import { type SandboxMode, sandboxSettings } from "../../server/sandbox/sandbox-options.js";
import type { OpencodeServerHandle } from "../../server/server-handle.js";
import { DEFAULT_ORPHAN_TIMEOUT_MS } from "../../server/server-keeper.js";
import { SupervisedServer } from "../../server/supervised-server.js";
import { defaultStorePath } from "../../store/default-store-path.js";
import { openStore } from "../../store/open-store.js";
import type { SessionQuery, SessionRecord, Store } from "../../store/store.js";
import { throwIfAborted } from "../../util/abort.js";
import { type Logger, silentLogger } from "../../util/logger.js";
import { type BackendFactory, Session } from "../session/session.js";
import { type BridgeOptions, chooseBackend, parseModel } from "./bridge-options.js";
import { createApiSession, upstreamExists } from "./create-api-session.js";
import { launch, type Runner, type ServeRunner } from "./launch.js";
import { type CloseOptions, type LeftRunning, leavingRefusal } from "./leave-running.js";
import { forgetServer, leaveServer, managedServerKey } from "./managed-servers.js";
import { ModelReadiness } from "./model-readiness.js";
import type { ModelServer } from "./model-server.js";
import { reconnectPolicy } from "./reconnect-policy.js";
import { whenServerReady } from "./server-ready.js";
import { historyBefore, movedTo } from "./session-lineage.js";
import { refuseBusy, summaryOf } from "./summary-turn.js";
import {
  listUpstreamSessions,
  readUpstreamSession,
  type UpstreamSessionInfo,
} from "./upstream-sessions.js";

export type { BridgeOptions } from "./bridge-options.js";
export type { CloseOptions, LeftRunning } from "./leave-running.js";
export type { UpstreamSessionInfo } from "./upstream-sessions.js";

export class Bridge implements AsyncDisposable {
  readonly backend: BackendKind;
  readonly #runner: Runner;
  readonly #options: BridgeOptions;
  readonly #model: ModelServer | undefined;
  readonly #logger: Logger;
  readonly #sessions = new Set<Session>();
  /** Adoptions under way (`openSession` of a kept session), by id. */
  readonly #opening = new Map<string, Promise<Session>>();
  /** Imports under way (`importSession`), by OpenCode session id. */
  readonly #importing = new Map<string, Promise<void>>();
  readonly #readyModels: ModelReadiness;
  /** Closed with `leaveRunning`, turns left for a successor. */
  #left = false;

  readonly #store: Store;
  readonly #ownsStore: boolean;

  private constructor(
    runner: Runner,
    model: ModelServer | undefined,
    options: BridgeOptions,
    store: { store: Store; owned: boolean },
  ) {
    this.#readyModels = new ModelReadiness(options.modelReadyTimeoutMs ?? 30_000);
    this.#store = store.store;
    this.#ownsStore = store.owned;
    this.backend = runner.kind;
    if (runner.kind !== "subprocess" && runner.server instanceof SupervisedServer) {
      // A crash fails the running turns at once, with the reason; the server then comes back.
      runner.server.onCrash((exit) => {
        // The restarted server loads its model catalog anew: wait for it before prompting.
        this.#readyModels.clear();
        for (const session of this.#sessions) session.serverExited(exit);
      });
      // Streams that reached the restarted server while it was starting may never be answered.
      runner.server.onRestart(() => {
        reconnectLiveStreams(runner.client);
        for (const session of this.#sessions) session.serverRestarted();
      });
    }
    this.#runner = runner;
    this.#model = model;
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** The OpenCode server's client (the serve backends only). */
  get client(): OpencodeClient {
    return this.#serve().client;
  }

  /** The OpenCode server (the serve backends only). */
  get server(): OpencodeServerHandle {
    return this.#serve().server;
  }

  /**
   * Starts (or attaches to) a server, or prepares `opencode run` for the `subprocess` backend;
   * with a `modelServer`, that too.
   */
  static async start(options: BridgeOptions): Promise<Bridge> {
    const kind = chooseBackend(options.backend);
    reconnectPolicy(options.reconnect); // refused before anything is started
    const store = await openBridgeStore(options.store, options.storeKey);
    try {
      const { runner, model } = await launch(options, kind, store.store);
      const bridge = new Bridge(runner, model, options, store);
      if (options.signal?.aborted) {
        // Aborted just as the start finished: stop what it started, as an abort mid-way does.
        await bridge.close();
        throw new AbortError("starting the bridge", { cause: options.signal.reason });
      }
      return bridge;
    } catch (error) {
      if (store.owned) await store.store.close();
      throw error;
    }
  }

  /**
   * The sandbox OpenCode's tools run in (`server.sandbox`); `unknown` for a server attached to,
   * which runs as whoever started it chose.
   */
  get sandbox(): SandboxMode | "unknown" {
    if (this.#options.attach !== undefined) return "unknown";
    return sandboxSettings(this.#options.server?.sandbox).mode;
  }

  /** The directory new sessions work in unless told otherwise (`BridgeOptions.directory`). */
  get directory(): string {
    return this.#options.directory;
  }

  /** The model new sessions use unless told otherwise. */
  get defaultModel(): ModelRef {
    if (this.#options.model) return this.#options.model;
    if (this.#model) return this.#model.defaultModel;
    const configured = this.#options.config?.model;
    if (typeof configured === "string") return parseModel(configured);
    throw new UsageError(
      "no model: pass `model` (provider/model), set `model` in the OpenCode config, or pass a `modelServer`",
    );
  }

  /**
   * The agents a session can switch to (`Session.switchAgent`) in `directory` (default: the
   * bridge's): OpenCode's primary agents that are not hidden, configured ones included. The
   * serve backend only (`capabilities.switchAgent`).
   */
  async agents(options: { directory?: string; signal?: AbortSignal } = {}): Promise<AgentInfo[]> {
    throwIfAborted(options.signal, "listing the agents");
    if (!BACKEND_CAPABILITIES[this.backend].switchAgent) {
      throw new UsageError(`the ${this.backend} backend cannot list or switch agents`);
    }
    return await listAgents(this.client, options.directory ?? this.directory, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /**
   * The slash commands of `directory` (default: the bridge's) that `Session.runCommand` runs:
   * its `.opencode/command/*.md` files, the config's `command` entries, OpenCode's built-ins,
   * and skills and MCP prompts offered as commands (`source`). `capabilities.commands`.
   */
  async commands(
    options: { directory?: string; signal?: AbortSignal } = {},
  ): Promise<CommandInfo[]> {
    this.#locationQuery("commands", "list slash commands", options.signal);
    return await listCommands(this.client, options.directory ?? this.directory, options.signal);
  }

  /** The MCP servers of `directory` and their state (none configured: `[]`). `capabilities.mcpStatus`. */
  async mcpStatus(
    options: { directory?: string; signal?: AbortSignal } = {},
  ): Promise<McpServerInfo[]> {
    this.#locationQuery("mcpStatus", "list MCP servers", options.signal);
    return await listMcpServers(this.client, options.directory ?? this.directory, options.signal);
  }

  /** The skills the model may load in `directory`, OpenCode's built-in ones included. `capabilities.skills`. */
  async skills(options: { directory?: string; signal?: AbortSignal } = {}): Promise<SkillInfo[]> {
    this.#locationQuery("skills", "list skills", options.signal);
    return await listSkills(this.client, options.directory ?? this.directory, options.signal);
  }

  /** Refuses a query of what a location offers where the backend has no server to ask. */
  #locationQuery(capability: keyof Capabilities, what: string, signal?: AbortSignal): void {
    throwIfAborted(signal, what);
    if (!BACKEND_CAPABILITIES[this.backend][capability]) {
      throw new UsageError(`the ${this.backend} backend cannot ${what}`);
    }
  }

  /** Creates a session (upstream too, except on `subprocess`, where its first turn does) and follows it. */
  async createSession(
    options: {
      directory?: string;
      model?: ModelRef;
      title?: string;
      signal?: AbortSignal;
      /**
       * Called with the new session's id before it is stored or followed (a cluster's sidecar
       * takes its lease there, so that its first append is fenced); a throw stops the create.
       * @internal
       */
      claim?: (id: string) => Promise<void>;
    } = {},
  ): Promise<Session> {
    throwIfAborted(options.signal, "creating a session");
    const directory = options.directory ?? this.#options.directory;
    const model = options.model ?? this.defaultModel;
    const runner = this.#runner;
    let id: string;
    if (runner.kind === "subprocess") {
      id = `ocb_${randomUUID()}`;
    } else if (runner.kind === "serve-legacy") {
      const info = await runner.client.session.create(
        options.title === undefined ? {} : { title: options.title },
        { directory, ...(options.signal === undefined ? {} : { signal: options.signal }) },
      );
      id = info.id;
    } else {
      id = await createApiSession(runner, this.#readyModels, {
        directory,
        model,
        ...(options.title === undefined ? {} : { title: options.title }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    }
    await options.claim?.(id);
    const now = Date.now();
    await this.#store.saveSession({
      id,
      backend: runner.kind,
      ...(runner.kind === "subprocess" ? {} : { upstreamId: id }),
      directory,
      ...(options.title === undefined ? {} : { title: options.title }),
      state: "open",
      createdAt: now,
      updatedAt: now,
    });
    return this.#follow(id, directory, model, undefined);
  }

  /**
   * Follows a session kept in the store again (after a restart of the bridge, or one that was
   * released): its kept events are read back, and on `serve` a turn that was running carries on
   * from the stored cursor and ends once. Other backends cannot replay what they missed: a turn
   * left running ends `failed` (`bridge-restarted`). `signal` is checked before anything is done
   * (opening reads the store and starts following: nothing to abort mid-way).
   */
  async openSession(
    id: string,
    options: { model?: ModelRef; signal?: AbortSignal } = {},
  ): Promise<Session> {
    throwIfAborted(options.signal, `opening session ${id}`);
    const record = await this.#store.session(id);
    if (record === undefined) {
      throw new UsageError(
        `no session ${JSON.stringify(id)} in the store; list them with \`ocb sessions\``,
      );
    }
    if (record.backend !== this.backend) {
      throw new UsageError(
        `session ${id} runs on the ${record.backend} backend, this bridge on ${this.backend}; ` +
          `start the bridge with backend "${record.backend}" to open it`,
      );
    }
    if (record.state === "killed")
      throw new UsageError(`session ${id} was killed; it cannot be opened`);
    const open = [...this.#sessions].find((session) => session.id === id);
    if (open !== undefined) return open;
    // One adoption per id at a time: a second call waits for the first's session rather than
    // following the same upstream session with another (the store reads below take turns).
    let opening = this.#opening.get(id);
    if (opening === undefined) {
      opening = this.#adopt(record, options.model ?? this.defaultModel).finally(() =>
        this.#opening.delete(id),
      );
      this.#opening.set(id, opening);
    }
    return await opening;
  }

  /**
   * Forks session `originId` before its input `inputId` (`capabilities.fork`): a new session
   * whose conversation is the origin's up to that input, its turn and what came after left
   * out (the chosen input is not sent again: a UI offers its text). Its kept events are the
   * origin's, copied, then `session.forked`; it runs on a new OpenCode session, which the
   * first input primes with that conversation. The origin is not changed. A UsageError for an
   * input the origin has not, or one that started no turn of its own.
   */
  async forkSession(
    originId: string,
    inputId: string,
    options: {
      model?: ModelRef;
      signal?: AbortSignal;
      /** As `createSession`'s: called with the fork's id before it is stored. @internal */
      claim?: (id: string) => Promise<void>;
    } = {},
  ): Promise<Session> {
    const { signal } = options;
    throwIfAborted(signal, `forking session ${originId}`);
    const runner = this.#apiRunner("fork a session");
    const origin = await this.#keptRecord(originId);
    // What the origin has received is kept before it is read.
    await [...this.#sessions].find((session) => session.id === originId)?.settled();
    const history = historyBefore(originId, await this.#store.read(originId), inputId);
    const model = options.model ?? this.defaultModel;
    const id = await createApiSession(runner, this.#readyModels, {
      directory: origin.directory,
      model,
      ...(origin.title === undefined ? {} : { title: origin.title }),
      ...(signal === undefined ? {} : { signal }),
    });
    await options.claim?.(id);
    const now = Date.now();
    await this.#store.saveSession({
      id,
      backend: runner.kind,
      upstreamId: id,
      directory: origin.directory,
      ...(origin.title === undefined ? {} : { title: origin.title }),
      state: "released",
      createdAt: now,
      updatedAt: now,
    });
    const forked = backendEvent(id, runner.kind, "runtime.fork", "session.forked", {
      from: { sessionId: originId, inputId },
      upstreamId: id,
    });
    await this.#store.append(id, [...movedTo(id, history), forked]);
    return await this.openSession(id, { model, ...(signal === undefined ? {} : { signal }) });
  }

  /**
   * Continues a session whose OpenCode session was lost (deleted, or kept by a server on
   * another machine) in a new one (`capabilities.rehydrate`): `session.rehydrated` names both,
   * and the next input primes the new one with the conversation so far (its latest part, when
   * long). A UsageError while its OpenCode session still exists. A session open here is
   * closed first (a turn it was running ends `failed`, `session-closed`).
   */
  async continueSession(
    id: string,
    options: { model?: ModelRef; signal?: AbortSignal } = {},
  ): Promise<Session> {
    const { signal } = options;
    throwIfAborted(signal, `continuing session ${id}`);
    const runner = this.#apiRunner("continue a session in a new OpenCode session");
    const record = await this.#keptRecord(id);
    const previous = record.upstreamId ?? id;
    if (await upstreamExists(runner, previous, record.directory, signal)) {
      throw new UsageError(
        `session ${id}'s OpenCode session ${previous} still exists: there is nothing to continue (send to the session)`,
      );
    }
    return await this.#toNewUpstream(runner, record, [], options);
  }

  /**
   * Compacts session `id`'s history on demand (`capabilities.compact`), resolving with the
   * session once done. On `serve-legacy`, OpenCode's own summarize (`Session.compact`). On
   * `serve`, whose OpenCode 1.18.33 has none on `/api` (its route answers 503), the bridge's:
   * the model is asked for a summary in a turn of the session (kept in the transcript), then the
   * session goes on in a new OpenCode session primed with that summary alone
   * (`session.compacted { summary }`, then `session.rehydrated`). A UsageError while the session
   * is busy; an error, with nothing compacted, when the summary turn does not complete.
   */
  async compactSession(
    id: string,
    options: {
      signal?: AbortSignal;
      /**
       * Called right before the session, its summary written, is closed to go on in a new
       * OpenCode session (a sidecar stops following it there).
       * @internal
       */
      beforeSwap?: () => void;
    } = {},
  ): Promise<Session> {
    const { signal } = options;
    throwIfAborted(signal, `compacting session ${id}`);
    const session = await this.openSession(id, signal === undefined ? {} : { signal });
    if (this.#runner.kind !== "serve") {
      await session.compact(signal === undefined ? {} : { signal });
      return session;
    }
    const runner = this.#apiRunner("compact a session's history");
    const summary = await summaryOf(session, signal);
    // An input that came while the summary was written would be cut off by the swap.
    refuseBusy(session, "compact again");
    const compacted = backendEvent(id, runner.kind, "runtime.compact", "session.compacted", {
      summary,
    });
    return await this.#toNewUpstream(runner, await this.#keptRecord(id), [compacted], options);
  }

  /**
   * Takes `record`'s session on in a new OpenCode session: `before`, then `session.rehydrated`
   * (old and new upstream ids) are kept, and the session is opened again on the new one, whose
   * first input carries the conversation so far (`pendingEarlierConversation`). A session open
   * here is closed first (a turn it was running ends `failed`, `session-closed`).
   */
  async #toNewUpstream(
    runner: ServeRunner & { kind: "serve" },
    record: SessionRecord,
    before: CanonicalEvent[],
    options: { model?: ModelRef; signal?: AbortSignal; beforeSwap?: () => void },
  ): Promise<Session> {
    const { id } = record;
    const { signal } = options;
    options.beforeSwap?.();
    const open = [...this.#sessions].find((session) => session.id === id);
    if (open !== undefined) {
      this.#sessions.delete(open);
      await open.close();
    }
    const model = options.model ?? this.defaultModel;
    const upstreamId = await createApiSession(runner, this.#readyModels, {
      directory: record.directory,
      model,
      ...(record.title === undefined ? {} : { title: record.title }),
      ...(signal === undefined ? {} : { signal }),
    });
    const rehydrated = backendEvent(id, runner.kind, "runtime.rehydrate", "session.rehydrated", {
      previousUpstreamId: record.upstreamId ?? id,
      upstreamId,
    });
    // The cursor starts again: the new OpenCode session's events are read from its first.
    await this.#store.append(id, [...before, rehydrated], "0");
    await this.#store.saveSession({ ...record, upstreamId, updatedAt: Date.now() });
    return await this.openSession(id, { model, ...(signal === undefined ? {} : { signal }) });
  }

  /**
   * The user's own OpenCode sessions (made by `opencode run`, the TUI, another client of the
   * server) in `directory` (default: the bridge's) or under it, that the store does not keep:
   * the most recently updated first, at most `UPSTREAM_SESSIONS_LIMIT`, subagents' child
   * sessions left out. `capabilities.importSessions`.
   */
  async upstreamSessions(
    options: { directory?: string; signal?: AbortSignal } = {},
  ): Promise<UpstreamSessionInfo[]> {
    const { signal } = options;
    throwIfAborted(signal, "listing OpenCode's sessions");
    const runner = this.#importRunner();
    const known = new Set<string>();
    for (const record of await this.#store.sessions()) {
      known.add(record.id);
      if (record.upstreamId !== undefined) known.add(record.upstreamId);
    }
    return await listUpstreamSessions(
      runner.client,
      options.directory ?? this.directory,
      known,
      signal,
    );
  }

  /**
   * Imports the user's OpenCode session `upstreamId` (one of `upstreamSessions()`) and follows
   * it (`capabilities.importSessions`): its whole history is kept as canonical events (read from
   * OpenCode's messages), then `session.imported`; new turns run in it, the first one telling
   * the model that history (OpenCode 1.18.33's `/api` model does not see a legacy session's
   * messages). The session's id is `upstreamId`. One already imported is opened, not imported
   * again (`imported: false`). A UsageError for a session OpenCode has not, or a subagent's.
   */
  async importSession(
    upstreamId: string,
    options: {
      /** The directory to ask OpenCode in (default: the bridge's). */
      directory?: string;
      model?: ModelRef;
      signal?: AbortSignal;
      /**
       * Called with the session as OpenCode has it before anything is kept: a throw stops the
       * import (the sidecar refuses directories it does not allow there). @internal
       */
      accept?: (info: UpstreamSessionInfo) => Promise<void>;
      /** As `createSession`'s: called with the id before it is stored. @internal */
      claim?: (id: string) => Promise<void>;
    } = {},
  ): Promise<{ session: Session; imported: boolean }> {
    const { signal } = options;
    throwIfAborted(signal, `importing OpenCode session ${upstreamId}`);
    const runner = this.#importRunner();
    const open = { ...(options.model === undefined ? {} : { model: options.model }) };
    // One import of an id at a time: a second waits, then finds it kept.
    const before = this.#importing.get(upstreamId);
    if (before !== undefined) await before.catch(() => {});
    if ((await this.#store.session(upstreamId)) !== undefined) {
      return { session: await this.openSession(upstreamId, { ...open }), imported: false };
    }
    const importing = (async () => {
      const { info, messages } = await readUpstreamSession(
        runner.client,
        upstreamId,
        options.directory ?? this.directory,
        signal,
      );
      await options.accept?.(info);
      await options.claim?.(upstreamId);
      const imported = backendEvent(upstreamId, runner.kind, "runtime.import", "session.imported", {
        upstreamId,
        messages: messages.length,
      });
      // The record after the events: a record is what says "imported", so it is never there
      // without its history. The cursor starts at OpenCode's /api stream's beginning.
      await this.#store.append(upstreamId, [...legacyHistory(upstreamId, messages), imported], "0");
      await this.#store.saveSession({
        id: upstreamId,
        backend: runner.kind,
        upstreamId,
        directory: info.directory,
        title: info.title,
        state: "released",
        createdAt: info.createdAt,
        updatedAt: Date.now(),
      });
    })();
    this.#importing.set(upstreamId, importing);
    try {
      await importing;
    } finally {
      if (this.#importing.get(upstreamId) === importing) this.#importing.delete(upstreamId);
    }
    return { session: await this.openSession(upstreamId, { ...open }), imported: true };
  }

  /** The runner of a backend that can import the user's sessions, or a UsageError. */
  #importRunner(): ServeRunner & { kind: "serve" } {
    if (!BACKEND_CAPABILITIES[this.backend].importSessions) {
      throw new UsageError(`the ${this.backend} backend cannot import OpenCode sessions`);
    }
    return this.#apiRunner("import OpenCode sessions");
  }

  /** The runner of the `/api` surface, or a UsageError saying the backend cannot `what`. */
  #apiRunner(what: string): ServeRunner & { kind: "serve" } {
    const runner = this.#runner;
    if (runner.kind !== "serve") throw new UsageError(`the ${runner.kind} backend cannot ${what}`);
    return runner as ServeRunner & { kind: "serve" };
  }

  /** The store's record of `id`, which must be there and not killed. */
  async #keptRecord(id: string): Promise<SessionRecord> {
    const record = await this.#store.session(id);
    if (record === undefined) {
      throw new UsageError(
        `no session ${JSON.stringify(id)} in the store; list them with \`ocb sessions\``,
      );
    }
    if (record.state === "killed") {
      throw new UsageError(`session ${id} was killed; it cannot be forked or continued`);
    }
    return record;
  }

  async #adopt(record: SessionRecord, model: ModelRef): Promise<Session> {
    const { id } = record;
    await this.#store.saveSession({ ...record, state: "open", updatedAt: Date.now() });
    const resume = { events: await this.#store.read(id), cursor: await this.#store.cursor(id) };
    return this.#follow(id, record.directory, model, resume, record.upstreamId);
  }

  /** The sessions kept in the store that `query` asks for (default: all, oldest first). */
  sessions(query?: SessionQuery): Promise<SessionRecord[]> {
    return this.#store.sessions(query);
  }

  /** Stops following a session and frees what it holds; the upstream session is kept (`openSession` takes it up again). */
  async releaseSession(session: Session): Promise<void> {
    this.#sessions.delete(session); // not handed out by openSession while it closes
    await session.close();
    await this.#markSession(session, "released");
  }

  /**
   * Stops following a session as a crash would (`Session.detach`): a running turn goes on
   * upstream, unended, its record untouched. A cluster's sidecar does this when it lost the
   * session's lease: the new driver adopts the turn and ends it.
   * @internal
   */
  async detachSession(session: Session): Promise<void> {
    this.#sessions.delete(session);
    await session.detach();
  }

  /**
   * Stops following a session and deletes it upstream for good; its transcript stays in the store.
   * An abort of `signal` before the delete went out leaves the session followed and upstream.
   */
  async killSession(session: Session, options: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = options;
    throwIfAborted(signal, `killing session ${session.id}`);
    await session.interrupt(signal === undefined ? {} : { signal }).catch(() => {});
    throwIfAborted(signal, `killing session ${session.id}`);
    await session.close();
    this.#sessions.delete(session);
    const runner = this.#runner;
    if (runner.kind !== "subprocess" && session.upstreamId !== undefined) {
      await runner.client.session.delete(
        { sessionID: session.upstreamId },
        { directory: session.directory, ...(signal === undefined ? {} : { signal }) },
      );
    }
    await this.#markSession(session, "killed");
  }

  async #markSession(session: Session, state: SessionRecord["state"]): Promise<void> {
    const record = await this.#store.session(session.id);
    if (record === undefined) return;
    await this.#store.saveSession({
      ...record,
      ...(session.upstreamId === undefined ? {} : { upstreamId: session.upstreamId }),
      state,
      updatedAt: Date.now(),
    });
  }

  #follow(
    id: string,
    directory: string,
    model: ModelRef,
    resume: { events: CanonicalEvent[]; cursor: string | undefined } | undefined,
    upstreamId?: string,
  ): Session {
    const runner = this.#runner;
    const factory: BackendFactory =
      runner.kind === "subprocess"
        ? (context) =>
            new SubprocessBackend(runner.environment, context, {
              model,
              autoApprove: this.#options.autoApprove === true,
              ...(upstreamId === undefined ? {} : { upstreamId }),
            })
        : runner.kind === "serve-legacy"
          ? (context) => new LegacyBackend(runner.client, context, { model })
          : (context) =>
              new ServeBackend(runner.client, context, {
                ...(upstreamId === undefined ? {} : { upstreamId }),
                ...(runner.server instanceof SupervisedServer
                  ? { dataHome: runner.server.dataHome }
                  : {}),
              });
    const session = new Session(id, factory, {
      directory,
      logger: this.#logger,
      store: this.#store,
      ...(runner.kind === "serve"
        ? {
            beforeSend: async ({ reconnected, signal, files }) => {
              await this.#serverReady(runner, directory, model, reconnected, signal);
              // `/api` sends media a model cannot take, failing that turn and every later one.
              checkModelTakes(files, model, this.#readyModels.inputsOf(directory, model));
            },
          }
        : {}),
      ...(resume === undefined ? {} : { resume }),
      ...(this.#options.watchdog === undefined ? {} : { watchdog: this.#options.watchdog }),
      ...(this.#options.steerFallback === undefined
        ? {}
        : { steerFallback: this.#options.steerFallback }),
      ...(this.#options.askTimeout === undefined ? {} : { askTimeout: this.#options.askTimeout }),
      ...(this.#options.connectionLostAfterMs === undefined
        ? {}
        : { connectionLostAfterMs: this.#options.connectionLostAfterMs }),
    });
    this.#sessions.add(session);
    this.#watchIdle(session);
    return session;
  }

  /** Releases a session left idle for `idleReleaseMs` (checked every tenth of it). */
  #watchIdle(session: Session): void {
    const after = this.#options.idleReleaseMs;
    if (after === undefined) return;
    const timer = setInterval(
      () => {
        if (!this.#sessions.has(session)) {
          clearInterval(timer);
          return;
        }
        const idleSince = session.idleSince;
        if (idleSince !== undefined && Date.now() - idleSince >= after) {
          clearInterval(timer);
          void this.releaseSession(session).catch((error: unknown) =>
            this.#logger.warn("releasing an idle session failed", { sessionId: session.id, error }),
          );
        }
      },
      Math.max(50, Math.floor(after / 10)),
    );
    timer.unref();
  }

  /**
   * Stops following every session, then stops the server (or removes the run dirs) and the
   * model server. With `leaveRunning` and a turn still running, leaves instead, as a crash of
   * this process would: see `CloseOptions` and what it returns, `LeftRunning`.
   */
  async close(options: CloseOptions = {}): Promise<LeftRunning> {
    if (this.#left) return { turns: [] }; // left already: nothing of it is this bridge's now
    const sessions = [...this.#sessions];
    const running = sessions.flatMap((session) => {
      const turn = session.runningTurn;
      return turn === undefined ? [] : [{ sessionId: session.id, turnId: turn.id }];
    });
    if (options.leaveRunning === true && running.length > 0) {
      const refusal = leavingRefusal(this.#runner.kind, this.#model !== undefined);
      if (refusal === undefined) return this.#leave(sessions, running);
      await this.#closeAll(sessions);
      return { turns: [], notLeft: refusal };
    }
    await this.#closeAll(sessions);
    return { turns: [] };
  }

  /** Detaches every session and leaves the server to its keeper, for a successor to adopt. */
  async #leave(sessions: Session[], turns: LeftRunning["turns"]): Promise<LeftRunning> {
    this.#left = true;
    this.#sessions.clear();
    // The records stay as they are ("open"): a successor opens them and adopts the turns.
    await Promise.allSettled(sessions.map((session) => session.detach()));
    let server: LeftRunning["server"];
    if (this.#runner.kind !== "subprocess") {
      const handle = this.#runner.server;
      if (handle.leave !== undefined && handle.pid !== undefined) {
        handle.leave();
        const key = managedServerKey(this.backend, this.#options.directory);
        await leaveServer(this.#store, key, handle.pid, this.#logger);
        server = {
          pid: handle.pid,
          url: handle.url,
          keptForMs: this.#options.server?.orphanTimeoutMs ?? DEFAULT_ORPHAN_TIMEOUT_MS,
        };
      }
    }
    if (this.#ownsStore) await this.#store.close();
    return { turns, ...(server === undefined ? {} : { server }) };
  }

  async #closeAll(sessions: Session[]): Promise<void> {
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.close()));
    try {
      for (const session of sessions) await this.#markSession(session, "released");
    } catch (error) {
      this.#logger.warn("could not mark the sessions released in the store", { error });
    } finally {
      await this.#stopRunner();
    }
  }

  /** `await using bridge = await Bridge.start(…)` closes it at the end of the block (same as `close()`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Stops the server (or removes the run dirs), the store it owns and the model server. */
  async #stopRunner(): Promise<void> {
    if (this.#runner.kind === "subprocess") {
      await this.#runner.environment.close();
    } else {
      const { server } = this.#runner;
      await server.close();
      // Stopped on purpose: nothing for a successor to take up (unless another bridge's now).
      const key = managedServerKey(this.backend, this.#options.directory);
      await forgetServer(this.#store, key, server.pid, this.#logger);
    }
    if (this.#ownsStore) await this.#store.close();
    await this.#model?.close();
  }

  #serve(): ServeRunner {
    if (this.#runner.kind === "subprocess") {
      throw new UsageError("the subprocess backend has no server or client");
    }
    return this.#runner;
  }

  /**
   * The server is up (a restart after a crash has finished) and lists the model. After the
   * session's streams lost the server and reached it again, the model is looked up again: an
   * attached server may have been restarted, and a restarted server loads its catalog anew.
   */
  async #serverReady(
    runner: ServeRunner,
    directory: string,
    model: ModelRef,
    reconnected: boolean,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (reconnected) this.#readyModels.forget(directory, model);
    const supervisor = runner.server instanceof SupervisedServer ? runner.server : undefined;
    // A crash during the wait (its restart clears what the catalog was known to list) is
    // waited out too: the send goes to the restarted server.
    await whenServerReady(
      supervisor,
      () => this.#readyModels.ensure(runner.client, directory, model, signal),
      signal,
    );
  }
}

/** The store the options name: one given (kept open), a path or `:memory:` (opened, and closed with the bridge). */
async function openBridgeStore(
  option: BridgeOptions["store"],
  storeKey: BridgeOptions["storeKey"],
): Promise<{ store: Store; owned: boolean }> {
  if (typeof option === "object") return { store: option, owned: false };
  return { store: await openStore(option ?? defaultStorePath(), { storeKey }), owned: true };
}
