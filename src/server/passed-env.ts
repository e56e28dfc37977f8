/**
 * Which of the bridge's own environment variables an OpenCode process it starts gets. An
 * allow-list, not a copy: whatever OpenCode has, every tool it runs has too (`env` in the
 * `bash` tool prints it to the model, hence to its provider and the transcript), and the
 * bridge's environment holds its own secrets (`OCB_TOKEN`, `OCB_CLUSTER_SECRET`,
 * `OCB_ATTACH_PASSWORD`, the store's encryption keys `OCB_STORE_KEY`, a store URL with a
 * database password, whatever else the operator exported).
 *
 * Passed: what a shell and its tools need (the system basics, locale, proxy and CA settings);
 * provider credentials by their conventional names (OpenCode reads a provider's key from the
 * environment, and the user who exported one chose to give it to the agent); the variables the
 * caller names (`passEnv`); and, with the user's own OpenCode setup, their `OPENCODE_*` and XDG
 * variables. Never a variable of the bridge's own (`OCB_*`), whatever it matches.
 */

/** Needed by a shell and the programs it runs, or by OpenCode to find its way. */
const BASICS: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "EDITOR",
  "VISUAL",
  "XDG_RUNTIME_DIR",
  // Proxies and certificate authorities: without them a corporate network has no provider.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

/** Locale categories (`LC_ALL`, `LC_CTYPE`, …). */
const BASIC_PREFIXES = ["LC_"];

/**
 * Provider credentials and settings as OpenCode's providers read them (`ANTHROPIC_API_KEY`,
 * `OPENROUTER_API_KEY`, `AWS_ACCESS_KEY_ID`, `AZURE_RESOURCE_NAME`,
 * `GOOGLE_APPLICATION_CREDENTIALS`, `VERTEX_LOCATION`, …).
 */
const PROVIDER_PATTERNS: readonly RegExp[] = [
  /_API_KEY$/,
  /_API_TOKEN$/,
  /^AWS_/,
  /^AZURE_/,
  /^GOOGLE_/,
  /^VERTEX_/,
];

/** The user's own OpenCode setup, passed only when the server runs with it. */
const USER_SETUP = [/^OPENCODE_/, /^XDG_(CONFIG|DATA|CACHE|STATE)_HOME$/];

/** The bridge's own variables: never passed, whatever else they match. */
const BRIDGE_OWN = /^OCB_/;

export interface PassedEnvOptions {
  /** The server runs with the user's own OpenCode config (not isolated). */
  userSetup: boolean;
  /** More names to pass; `NAME_*` passes every variable starting with `NAME_`. */
  passEnv?: readonly string[] | undefined;
}

/** The variables of `parent` a child OpenCode gets (see the module comment). */
export function passedEnv(
  parent: NodeJS.ProcessEnv,
  options: PassedEnvOptions,
): Record<string, string> {
  const named = namedMatcher(options.passEnv ?? []);
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || BRIDGE_OWN.test(name)) continue;
    if (
      BASICS.has(name) ||
      BASIC_PREFIXES.some((prefix) => name.startsWith(prefix)) ||
      PROVIDER_PATTERNS.some((pattern) => pattern.test(name)) ||
      (options.userSetup && USER_SETUP.some((pattern) => pattern.test(name))) ||
      named(name)
    ) {
      passed[name] = value;
    }
  }
  return passed;
}

/** A matcher for the caller's names: exact, or `PREFIX*`. */
function namedMatcher(names: readonly string[]): (name: string) => boolean {
  const exact = new Set(names.filter((name) => !name.endsWith("*")));
  const prefixes = names.filter((name) => name.endsWith("*")).map((name) => name.slice(0, -1));
  return (name) => exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}
