/** When a session was last active, for the side list's order and its "5 min ago". */
import type { SessionInfo } from "opencode-bridge/client";

/**
 * When a session was last active: its last event, else its creation. Not its record's last
 * change (`updatedAt`): a stop releases every session and a start opens them again, which
 * made a session with no turns the newest of all ("just now") after a restart.
 */
export function lastActivity(session: SessionInfo): number | undefined {
  return session.lastActivityAt ?? session.createdAt;
}
