/**
 * The open session's sandbox, always in sight: who drives an agent from a browser should know
 * whether its commands can touch the whole machine (docs/security.md).
 */
import type { SessionInfo } from "opencode-bridge/client";

const SAID: Record<NonNullable<SessionInfo["sandbox"]>, { label: string; title: string }> = {
  off: {
    label: "No sandbox",
    title:
      "The agent's tools run with your user's rights: they can read and write anything you can.",
  },
  "read-only": {
    label: "Sandbox: read-only",
    title:
      "The agent's tools cannot write anything but OpenCode's own state; ~/.ssh, ~/.aws and the like are unreadable.",
  },
  "workspace-write": {
    label: "Sandbox: workspace",
    title:
      "The agent's tools can write only in the session's directory; ~/.ssh, ~/.aws and the like are unreadable.",
  },
  unknown: {
    label: "Sandbox: unknown",
    title:
      "The sidecar drives an OpenCode server someone else started: its sandbox, if any, is theirs.",
  },
};

export function SandboxBadge(props: { sandbox: SessionInfo["sandbox"] }) {
  if (props.sandbox === undefined) return null;
  const { label, title } = SAID[props.sandbox];
  return (
    <span
      class={`sandbox-badge sandbox-${props.sandbox}`}
      data-testid="sandbox-badge"
      title={title}
    >
      {label}
    </span>
  );
}
