/**
 * Registers the app shell's service worker (web/public/sw.js), which keeps the page and its
 * assets and never the API. Only where the browser has one: a page on a plain-http network
 * address (not a secure context) has none, and works as before.
 */
export function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator)) return;
  // A refused registration (storage off, a private window) costs nothing but the cache.
  navigator.serviceWorker.register("./sw.js").catch(() => {});
}
