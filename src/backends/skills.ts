/** The skills of a location (`Bridge.skills`), read only: what the model may load by name. */

import type { OpencodeClient } from "../opencode-client/opencode-client.js";
import type { Skill as NativeSkill } from "../opencode-protocol/legacy/location-lists.js";
import { clipText } from "../util/clip-text.js";

/** One skill. Its content is left out: the model loads it with its `skill` tool. */
export interface SkillInfo {
  name: string;
  /** When the model should use it (untrusted text, bounded). */
  description?: string;
  /** Its file, or `<built-in>` for OpenCode's own. */
  location: string;
}

const MAX_DESCRIPTION_CHARS = 2_000;
const MAX_SKILLS = 500;

export function skillInfo(skill: NativeSkill): SkillInfo {
  const description = skill.description?.trim();
  return {
    name: clipText(skill.name, 200),
    ...(description ? { description: clipText(description, MAX_DESCRIPTION_CHARS) } : {}),
    location: clipText(skill.location, 1_000),
  };
}

/** The skills of `directory`, OpenCode's built-in ones included. */
export async function listSkills(
  client: OpencodeClient,
  directory: string,
  signal?: AbortSignal,
): Promise<SkillInfo[]> {
  const skills = await client.app.skills({ directory, ...(signal ? { signal } : {}) });
  return skills.slice(0, MAX_SKILLS).map(skillInfo);
}
