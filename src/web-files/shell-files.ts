/**
 * The installable app's files at the root of the built chat (typed by their extension, as the
 * assets are): the manifest and its icons, and the service worker (at the root because its
 * scope is the folder it is served from). Whoever serves the chat (the sidecar, the relay)
 * serves these beside `index.html` and `assets/`, never cached by the browser's HTTP cache
 * (no-cache), so a new build's worker is seen at once.
 */
export const SHELL_FILES: readonly string[] = [
  "manifest.webmanifest",
  "sw.js",
  "icon.svg",
  "icon-maskable.svg",
  // PNGs rendered from the SVGs (npm run icons): iOS's home screen and older Android launchers.
  "apple-touch-icon.png",
  "icon-192.png",
  "icon-512.png",
  "icon-maskable-192.png",
  "icon-maskable-512.png",
];
