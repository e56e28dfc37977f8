/**
 * The terminal socket's messages (`GET /v1/sessions/:id/terminal`, a WebSocket): JSON text
 * frames both ways. The sidecar sends `ready` once the shell runs, its `output` as it comes, and
 * `ended` before it closes the socket; the client sends `input` (typed into the shell) and
 * `resize`. Isomorphic: the typed client parses with the same schemas.
 */
import { z } from "zod";

/** The most text one `input` message carries. */
export const MAX_TERMINAL_INPUT_CHARS = 64 * 1024;

const Cells = z.number().int().min(1).max(1000);

export const TerminalClientMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("input"), data: z.string().max(MAX_TERMINAL_INPUT_CHARS) }),
  z.strictObject({ type: z.literal("resize"), cols: Cells, rows: Cells }),
]);
export type TerminalClientMessage = z.infer<typeof TerminalClientMessageSchema>;

export const TerminalServerMessageSchema = z.discriminatedUnion("type", [
  /**
   * The shell runs; `id` is OpenCode's id of the PTY. `reattached`: it is the kept terminal the
   * URL named (`?terminal=`), and its scrollback follows first (its newest output, up to 256
   * KiB, from a line start, the output printed while no socket was attached included): draw it
   * on an empty screen, or reset the screen first; absent or false: a new shell.
   */
  z.object({ type: z.literal("ready"), id: z.string(), reattached: z.boolean().optional() }),
  z.object({ type: z.literal("output"), data: z.string() }),
  /** A `resize` was applied. */
  z.object({ type: z.literal("resized"), cols: Cells, rows: Cells }),
  /** Why the terminal ended (`exited`, `closed`, `overflow`, `failed`); the socket closes next. */
  z.object({ type: z.literal("ended"), reason: z.string(), message: z.string() }),
  /** A message of the client's was refused (not JSON, not one of the above); the socket stays. */
  z.object({ type: z.literal("error"), message: z.string() }),
]);
export type TerminalServerMessage = z.infer<typeof TerminalServerMessageSchema>;

/** The size query of the terminal socket's URL (both or neither). */
export const TerminalQuerySchema = z.object({
  cols: z.coerce.number().pipe(Cells).optional(),
  rows: z.coerce.number().pipe(Cells).optional(),
  ticket: z.string().optional(),
  /** A kept terminal's id (`ready.id`) to take back after a dropped socket; else a new one. */
  terminal: z.string().min(1).max(200).optional(),
});

/** Close codes of the terminal socket besides 1000 (the terminal ended) and 1012 (stopping). */
export const TERMINAL_CLOSE = {
  /** The client did not read the output fast enough: the terminal was closed. */
  slowConsumer: 4008,
  /**
   * Sent by a client that leaves but wants its shell kept (as a drop, 1006, or a page's
   * unload, 1001, are): the terminal waits `TERMINAL_GRACE_MS` for `?terminal=<id>`. Any other
   * close by the client (1000, 1005) ends the shell.
   */
  detach: 4000,
  /** Sent to a socket whose terminal another socket took back (`?terminal=`). */
  replaced: 4009,
} as const;

/** How long a terminal whose socket dropped is kept for a new socket to take it back. */
export const TERMINAL_GRACE_MS = 60_000;
