/**
 * The headers of every answer that serves the web chat (the sidecar's and the relay's). The
 * page renders model output (untrusted): the CSP lets it run only its own scripts and reach
 * only its own origin, so an injected `<img onerror>` or `<script>` that got past the sanitiser
 * still does nothing.
 */

/** The CSP, with `connectSrc` added to `'self'` (the relay's page names its own ws/wss origin). */
export function contentSecurityPolicy(connectSrc: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "img-src 'self' data: blob:",
    ["connect-src 'self'", ...connectSrc].join(" "),
    "style-src 'self' 'unsafe-inline'",
    "script-src 'self'",
    // Said outright, though both fall back to 'self': the app shell's service worker and manifest.
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The sidecar's page's CSP: it reaches its own origin only. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** Every header of a chat's answer, its CSP's `connect-src` widened by `connectSrc`. */
export function webSecurityHeaders(connectSrc: readonly string[] = []): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(connectSrc),
    "x-content-type-options": "nosniff",
    // The token and a pairing's secret live in the fragment, which no Referer carries;
    // no-referrer keeps the rest too.
    "referrer-policy": "no-referrer",
    // Older browsers that ignore frame-ancestors.
    "x-frame-options": "DENY",
  };
}

export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = webSecurityHeaders();

/** Hashed assets never change under their name; the page that names them always may. */
export const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";
export const PAGE_CACHE_CONTROL = "no-cache";
