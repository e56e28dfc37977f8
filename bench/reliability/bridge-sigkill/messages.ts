/**
 * What the bridge child (child.ts) tells the scenario over its IPC channel, one message per
 * step, validated on arrival: a child is killed at random moments, so the scenario trusts only
 * what a schema accepts.
 */
import { z } from "zod";

/** The turns every round runs: a tool step, then a slow reply long enough to be cut. */
export const TOKENS = 20;
export const TOKEN_DELAY_MS = 100;
export const PROMPT = `[[tool bash {"command":"echo adopted","description":"echo"}]] [[slow ${TOKENS} ${TOKEN_DELAY_MS}]]`;
/**
 * The reply alone streams this long after the tool step, which comes after the admission: a
 * kill within this window after the admission lands before the turn's end, whatever the load.
 */
export const MID_TURN_WINDOW_MS = TOKENS * TOKEN_DELAY_MS;
/** The reply's text, as the scripted model streams it. */
export const REPLY = Array.from({ length: TOKENS }, (_, index) => `tok${index + 1}`).join(" ");

export const ChildMessage = z.discriminatedUnion("kind", [
  /** The bridge is up: its managed server (taken up, or started), and the server's password. */
  z.object({
    kind: z.literal("started"),
    serverPid: z.number().int().positive(),
    password: z.string(),
  }),
  /** The session is followed: created, or opened from the store with the turn it adopted. */
  z.object({
    kind: z.literal("opened"),
    sessionId: z.string(),
    adoptedTurnId: z.string().optional(),
  }),
  /** A turn (adopted or sent by this child) ended, as the bridge's `Turn.done()` says. */
  z.object({
    kind: z.literal("ended"),
    turnId: z.string(),
    outcome: z.string(),
    text: z.string(),
  }),
  /** A turn was sent and admitted: from now on the child may be killed. */
  z.object({ kind: z.literal("sent"), turnId: z.string() }),
  /** The last child closed its bridge (the server it took up is stopped). */
  z.object({ kind: z.literal("closed") }),
  z.object({ kind: z.literal("failed"), message: z.string() }),
]);
export type ChildMessage = z.infer<typeof ChildMessage>;

/** What the scenario tells the child, in its environment (the config holds the API key). */
export const ChildSetup = z.object({
  store: z.string(),
  directory: z.string(),
  log: z.string(),
  /** The OpenCode config of the managed server: the scripted model as provider `demo`. */
  config: z.record(z.string(), z.unknown()),
  orphanTimeoutMs: z.number().int().positive(),
  /** `first`: create the session; `next`: adopt, then send the next turn; `last`: adopt, send one uninterrupted turn, close. */
  role: z.enum(["first", "next", "last"]),
  sessionId: z.string().optional(),
  /** The turn the killed child had sent: the one to adopt. */
  expectTurnId: z.string().optional(),
});
export type ChildSetup = z.infer<typeof ChildSetup>;

export const SETUP_ENV = "OCB_BRIDGE_SIGKILL_SETUP";
