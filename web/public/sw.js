/**
 * The web chat's service worker: it keeps the app's SHELL (the page and its hashed assets), so
 * the chat opens, installed or not, and says what is wrong when the sidecar is away. Nothing
 * else passes through it: the API (`/v1/…`), its streams and `/healthz` go straight to the
 * network, never into a cache, and so does anything carrying the token (which lives in the
 * URL's fragment, never part of a request, and in the tab's sessionStorage).
 *
 * The page is network-first (a new build is served at the next load, as without a worker);
 * the cache answers only when the network fails. The assets are cache-first: their names
 * change with their content. Each page fetched names its assets, and the others are dropped.
 */
const CACHE = "ocb-shell-v1";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const shell = new URL("./", self.location.href);
  if (request.mode === "navigate" && url.pathname === shell.pathname) {
    event.respondWith(page(request, shell.href));
  } else if (isAsset(url.href) && url.pathname.startsWith(`${shell.pathname}assets/`)) {
    event.respondWith(asset(request));
  }
  // Everything else (the API above all) is not ours to answer.
});

/** The page from the network (kept, under its bare URL), else the kept one. */
async function page(request, key) {
  try {
    const fresh = await fetch(request);
    if (fresh.ok) {
      const text = await fresh.clone().text();
      const cache = await caches.open(CACHE);
      await cache.put(key, fresh.clone());
      await dropAssetsNotIn(cache, text);
    }
    return fresh;
  } catch (failure) {
    const kept = await caches.match(key);
    if (kept !== undefined) return kept;
    throw failure;
  }
}

/** A hashed asset from the cache, else from the network (then kept). */
async function asset(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept !== undefined) return kept;
  const fresh = await fetch(request);
  if (fresh.ok) await cache.put(request, fresh.clone());
  return fresh;
}

/** Drops the kept assets of older builds: those neither the page nor its own assets name. */
async function dropAssetsNotIn(cache, pageText) {
  const kept = (await cache.keys()).filter((request) => isAsset(request.url));
  let named = pageText;
  // A lazy chunk (the review panel) is named by the entry script, not by the page.
  for (const request of kept) {
    if (!pageText.includes(fileName(request.url))) continue;
    const response = await cache.match(request);
    if (response !== undefined) named += await response.text();
  }
  for (const request of kept) {
    if (!named.includes(fileName(request.url))) await cache.delete(request);
  }
}

function isAsset(href) {
  return new URL(href).pathname.includes("/assets/");
}

function fileName(href) {
  const path = new URL(href).pathname;
  return path.slice(path.lastIndexOf("/") + 1);
}
