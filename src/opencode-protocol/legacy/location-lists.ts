/**
 * What a location offers beside sessions, as the legacy surface lists it: slash commands
 * (`GET /command`), MCP servers and their state (`GET /mcp`), skills (`GET /skill`). Verified
 * on 1.18.33: these answer at once, where `/api/command` answers `[]` for about a second after
 * the location's first request (as `/api/agent` does) and lacks `hints` and `source`.
 */
import { z } from "zod";

/**
 * One entry of `GET /command`: `.opencode/command/*.md` files, config `command` entries,
 * the built-ins (`init`, `review`), and skills and MCP prompts offered as commands (`source`).
 * `hints` are the template's placeholders (`$ARGUMENTS`, `$1`, …). Config entries carry
 * `agent`, `model` and `subtask` as `null` when unset.
 */
export const Command = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  template: z.string(),
  source: z.string().optional(),
  agent: z.string().nullish(),
  model: z.string().nullish(),
  subtask: z.boolean().nullish(),
  hints: z.array(z.string()).optional(),
});
export type Command = z.infer<typeof Command>;
export const CommandList = z.array(Command);

/**
 * A server's state in `GET /mcp` (name -> state): `connected`, `disabled`, `failed` (with
 * `error`), `needs_auth`, `needs_client_registration` (with `error`). Left a string so that a
 * new state does not fail the list.
 */
export const McpState = z.looseObject({ status: z.string(), error: z.string().optional() });
export type McpState = z.infer<typeof McpState>;
export const McpStatus = z.record(z.string(), McpState);

/** One entry of `GET /skill`: `location` is its file (`<built-in>` for OpenCode's own). */
export const Skill = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  location: z.string(),
  content: z.string(),
});
export type Skill = z.infer<typeof Skill>;
export const SkillList = z.array(Skill);
