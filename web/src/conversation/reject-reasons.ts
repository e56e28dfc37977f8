/**
 * The reasons this page gave with its rejections, by ask. The canonical `permission.replied`
 * carries the reply but not its message, so the page that typed the reason is the one that
 * can show it afterwards (another tab, or this one after a reload, shows "Rejected" alone).
 */
const reasons = new Map<string, string>();

export function rememberRejectReason(requestId: string, reason: string): void {
  if (reason.trim() !== "") reasons.set(requestId, reason.trim());
}

export function rejectReasonOf(requestId: string): string | undefined {
  return reasons.get(requestId);
}
