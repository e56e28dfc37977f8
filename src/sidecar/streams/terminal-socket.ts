/**
 * `GET /v1/sessions/:id/terminal`: a terminal in the session directory, over the sidecar's own
 * WebSocket (the token or a ticket, and the Host and Origin checks of every route, security.ts),
 * proxied to OpenCode's PTY, whose port never leaves the sidecar. The terminal lives as long
 * as its socket, except that a socket that drops (1006), unloads (1001) or detaches (4000)
 * leaves it kept for a grace period, for a new socket to take back with `?terminal=<id>`
 * (KeptTerminal: a reload must not lose the shell), which sends it the terminal's scrollback
 * first (its newest output, TERMINAL_SCROLLBACK_BYTES); its end (the shell exits, the session
 * closes) closes the socket. Output waits in the socket's buffer up to a bound; a client that
 * reads slower than that is disconnected (4008) and the terminal closed, so a stalled client
 * cannot grow the sidecar's memory. The messages are in src/wire/terminal.ts.
 */
import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { Terminal } from "../../backends/terminal.js";
import type { Session } from "../../runtime/session/session.js";
import { describeError } from "../../util/describe-error.js";
import type { Logger } from "../../util/logger.js";
import {
  TERMINAL_CLOSE,
  TERMINAL_GRACE_MS,
  TerminalClientMessageSchema,
  TerminalQuerySchema,
  type TerminalServerMessage,
} from "../../wire/terminal.js";
import { callSignal } from "../call-bounds.js";
import type { SidecarContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { SidecarApp } from "../sidecar-app.js";
import { KeptTerminal, type TerminalSink } from "./kept-terminal.js";
import type { StreamSocket } from "./ws-connection.js";

/** Unsent output past which a client counts as too slow (bytes in the socket's buffer). */
export const TERMINAL_BACKLOG_BYTES = 1024 * 1024;
/**
 * The scrollback kept per terminal and sent first to a socket that takes it back (a reload, a
 * drop): 256 KiB is some 3,000 lines of 80 columns, many screens more than a reloaded page
 * needs to look as it did (the web chat's xterm scrolls back 5,000 lines, but the newest
 * screens are what a reload must not lose), while a sidecar with dozens of shells keeps only a
 * few MiB for them. It also bounds the output held while no socket is attached.
 */
export const TERMINAL_SCROLLBACK_BYTES = 256 * 1024;
const OPEN = 1;

const ParamsSchema = z.object({ id: z.string().min(1).max(200) });

/**
 * The open terminal sockets and the terminals kept for them (by OpenCode's PTY id), closed
 * together when the sidecar stops.
 */
export class TerminalSockets {
  readonly #open = new Set<() => void>();
  readonly #kept = new Map<string, KeptTerminal>();
  readonly #graceMs: number;

  constructor(options: { graceMs?: number } = {}) {
    this.#graceMs = options.graceMs ?? TERMINAL_GRACE_MS;
  }

  add(stop: () => void): () => void {
    this.#open.add(stop);
    return () => this.#open.delete(stop);
  }

  /** Keeps a newly opened terminal until it ends. */
  keep(sessionId: string, terminal: Terminal, logger: Logger): KeptTerminal {
    const kept = new KeptTerminal(terminal, {
      sessionId,
      graceMs: this.#graceMs,
      scrollbackBytes: TERMINAL_SCROLLBACK_BYTES,
      logger,
      onGone: () => this.#kept.delete(terminal.id),
    });
    this.#kept.set(terminal.id, kept);
    return kept;
  }

  /** The session's kept terminal `id`, if it still runs (another session's id is not found). */
  kept(sessionId: string, id: string): KeptTerminal | undefined {
    const kept = this.#kept.get(id);
    return kept?.sessionId === sessionId ? kept : undefined;
  }

  stopAll(): void {
    for (const stop of [...this.#open]) stop();
    for (const kept of [...this.#kept.values()]) void kept.close();
  }
}

/**
 * Registers the route on `app` (the scope with the WebSocket plugin). The session is opened and
 * its capability checked before the upgrade, so a refusal is a plain HTTP error (404, 409, 422).
 */
export function registerTerminalRoute(
  app: SidecarApp,
  ctx: SidecarContext,
  sockets: TerminalSockets,
  claim: (request: FastifyRequest) => void,
  stoppingReason: string,
): void {
  const sessions = new WeakMap<FastifyRequest, Session>();
  app.get(
    "/v1/sessions/:id/terminal",
    {
      websocket: true,
      schema: {
        summary:
          "A WebSocket: a terminal (a shell) in the session's directory, proxied to OpenCode's PTY (capabilities.terminal; 422 elsewhere). Messages: src/wire/terminal.ts, docs/sidecar.md",
        params: ParamsSchema,
        querystring: TerminalQuerySchema,
      },
      preHandler: async (request) => {
        const { id } = request.params as z.infer<typeof ParamsSchema>;
        const { cols, rows } = request.query as z.infer<typeof TerminalQuerySchema>;
        if ((cols === undefined) !== (rows === undefined)) {
          throw new ApiError(
            "invalid_request",
            "give the terminal's size as both cols and rows, or neither",
          );
        }
        const session = await ctx.sessions.open(id, { signal: callSignal(ctx) });
        if (!session.capabilities.terminal) {
          throw new ApiError(
            "unsupported",
            `the ${ctx.bridge.backend} backend cannot open a terminal`,
          );
        }
        sessions.set(request, session);
      },
    },
    (socket, request) => {
      claim(request);
      const session = sessions.get(request);
      if (session === undefined) return; // the preHandler answered already
      const { cols, rows, terminal } = request.query as z.infer<typeof TerminalQuerySchema>;
      const size = cols !== undefined && rows !== undefined ? { cols, rows } : undefined;
      void serveTerminal(socket as StreamSocket, session, {
        size,
        reattach: terminal,
        sockets,
        logger: ctx.logger,
        stopping: ctx.stopping,
        stoppingReason,
      });
    },
  );
}

/** What `serveTerminal` needs of a session. */
export type TerminalSession = Pick<Session, "id" | "openTerminal">;

export interface ServeOptions {
  size: { cols: number; rows: number } | undefined;
  /** A kept terminal's id to take back (`?terminal=`); a new one when it is not kept. */
  reattach?: string | undefined;
  sockets: TerminalSockets;
  logger: Logger;
  stopping: AbortSignal;
  stoppingReason: string;
}

/** Closes that keep the shell for a new socket: a drop, a page's unload, the client's detach. */
const KEEPING_CLOSES: ReadonlySet<number> = new Set([1001, 1006, TERMINAL_CLOSE.detach]);

/**
 * Opens the session's terminal, or takes back the kept one `options.reattach` names, and proxies
 * it over `socket` until one of them ends (or the socket drops: then it is kept, KeptTerminal).
 */
export async function serveTerminal(
  socket: StreamSocket,
  session: TerminalSession,
  options: ServeOptions,
): Promise<void> {
  const send = (message: TerminalServerMessage): void => {
    if (socket.readyState === OPEN) socket.send(JSON.stringify(message));
  };
  const closeSocket = (code: number, reason: string): void => {
    if (socket.readyState === OPEN) socket.close(code, reason);
  };
  // The socket may close while the terminal is being opened: it is closed then as well.
  const socketGone = new AbortController();
  socket.on("close", () => socketGone.abort());
  const forget = options.sockets.add(() => closeSocket(1012, options.stoppingReason));
  let kept =
    options.reattach === undefined ? undefined : options.sockets.kept(session.id, options.reattach);
  const reattached = kept !== undefined;
  if (kept === undefined) {
    let terminal: Terminal;
    try {
      terminal = await session.openTerminal({
        signal: socketGone.signal,
        ...(options.size === undefined ? {} : { size: options.size }),
      });
    } catch (error) {
      forget();
      send({ type: "ended", reason: "failed", message: describeError(error) });
      closeSocket(1011, "the terminal could not be opened");
      return;
    }
    kept = options.sockets.keep(session.id, terminal, options.logger);
  }
  const held = kept;
  if (socketGone.signal.aborted || options.stopping.aborted) {
    forget();
    await held.close();
    closeSocket(1012, options.stoppingReason);
    return;
  }
  // Taken over by another socket: this socket's close no longer concerns the terminal.
  let handedOver = false;
  const sink: TerminalSink = {
    output: (data) => {
      if (socket.bufferedAmount > TERMINAL_BACKLOG_BYTES) {
        options.logger.warn("closed a terminal whose client did not read its output", {
          sessionId: session.id,
          terminalId: held.terminal.id,
        });
        closeSocket(
          TERMINAL_CLOSE.slowConsumer,
          "terminal output backed up: this client read too slowly; the terminal was closed",
        );
        void held.close();
        return;
      }
      send({ type: "output", data });
    },
    ended: (end) => {
      send({ type: "ended", reason: end.reason, message: end.message });
      closeSocket(1000, end.reason);
    },
    replaced: () => {
      handedOver = true;
      closeSocket(TERMINAL_CLOSE.replaced, "the terminal was taken back by another socket");
    },
  };
  socket.on("close", (code) => {
    forget();
    if (handedOver) return;
    if (KEEPING_CLOSES.has(code) && !options.stopping.aborted) held.detach(sink);
    else void held.close();
  });
  socket.on("message", (data, isBinary) => {
    const parsed = isBinary ? undefined : parseMessage(data);
    if (parsed === undefined) {
      send({
        type: "error",
        message:
          'send JSON text: { "type": "input", "data": "…" } or { "type": "resize", "cols": n, "rows": n }',
      });
      return;
    }
    if (parsed.type === "input") {
      held.terminal.write(parsed.data);
      return;
    }
    const size = { cols: parsed.cols, rows: parsed.rows };
    held.terminal.resize(size, { signal: socketGone.signal }).then(
      () => send({ type: "resized", ...size }),
      (error: unknown) => send({ type: "error", message: `resize: ${describeError(error)}` }),
    );
  });
  send({ type: "ready", id: held.terminal.id, ...(reattached ? { reattached } : {}) });
  // A reattached terminal's resize: the new page may be another size than the old one.
  if (reattached && options.size !== undefined) {
    held.terminal.resize(options.size).catch(() => undefined);
  }
  held.attach(sink);
}

function parseMessage(
  data: Buffer | ArrayBuffer | Buffer[],
): z.infer<typeof TerminalClientMessageSchema> | undefined {
  const text = Array.isArray(data)
    ? Buffer.concat(data).toString("utf8")
    : Buffer.from(data as ArrayBuffer).toString("utf8");
  try {
    const parsed = TerminalClientMessageSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
