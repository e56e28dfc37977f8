/**
 * OpenCode's pseudo-terminals on the `/api` surface (`/api/pty`), as verified on 1.18.33 (see
 * docs/opencode-notes.md, "Terminal"). A PTY runs a login shell (`/bin/bash -l`) in `cwd`; it
 * stays listed, `status: "exited"` with its `exitCode`, after its shell ends, until removed.
 * Its output and input go over a WebSocket (`GET /api/pty/{ptyID}/connect`): output as text
 * frames, plus one binary frame starting with a 0 byte (`{ cursor }`, where a replay ends);
 * input as text frames written to the shell as they are. The socket closes 1000 when the shell
 * ends.
 */
import { z } from "zod";

export const Pty = z.looseObject({
  id: z.string(),
  title: z.string().optional(),
  command: z.string().optional(),
  cwd: z.string().optional(),
  /** `running` or `exited`; left a string so that a new state does not fail a list. */
  status: z.string(),
  pid: z.number().optional(),
  exitCode: z.number().optional(),
});
export type Pty = z.infer<typeof Pty>;
export const PtyList = z.array(Pty);

/** `POST /api/pty` body: every field optional (the default is a login shell in the location). */
export const PtyCreateRequest = z.strictObject({
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  cwd: z.string().optional(),
  title: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/** A terminal's size in character cells. */
export const PtySize = z.strictObject({
  rows: z.number().int().positive(),
  cols: z.number().int().positive(),
});

/** `PUT /api/pty/{ptyID}` body. */
export const PtyUpdateRequest = z.strictObject({
  title: z.string().optional(),
  size: PtySize.optional(),
});
