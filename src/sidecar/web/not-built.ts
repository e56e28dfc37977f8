/** The page `/` shows when the chat's assets were not built: what to run, nothing else. */
export function notBuiltPage(root: string): string {
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>opencode-bridge: the web chat is not built</title>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; line-height: 1.5">
<h1>The web chat is not built</h1>
<p>This sidecar serves the chat from <code>${escapeHtml(root)}</code>, which has no
<code>index.html</code>. In a checkout, run <code>npm run build:web</code> (or <code>npm start</code>,
which builds it), then reload this page.</p>
<p>The API works without it; see docs/sidecar.md.</p>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
