/**
 * Every WebSocket a page of `context` opens, kept in `window.__sockets` (in the order opened):
 * for a test to see which sockets the page made, or to close one from under it.
 */
import type { BrowserContext } from "playwright-core";

export async function recordPageSockets(context: BrowserContext): Promise<void> {
  await context.addInitScript(`(() => {
    const Original = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Original {
      constructor(...args) { super(...args); window.__sockets.push(this); }
    };
  })()`);
}
