/**
 * The headers of every answer of the chat's routes. The page renders model output (untrusted):
 * the CSP lets it run only its own scripts and reach only its own origin, so an injected
 * `<img onerror>` or `<script>` that got past the sanitiser still does nothing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  // Said outright, though both fall back to 'self': the app shell's service worker and manifest.
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  // The token lives in the fragment, which no Referer carries; no-referrer keeps the rest too.
  "referrer-policy": "no-referrer",
  // Older browsers that ignore frame-ancestors.
  "x-frame-options": "DENY",
};

/** Hashed assets never change under their name; the page that names them always may. */
export const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";
export const PAGE_CACHE_CONTROL = "no-cache";
