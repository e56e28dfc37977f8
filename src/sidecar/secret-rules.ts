/** What makes a token or a secret of the sidecar strong enough (light: the CLI checks it early). */

/** The smallest token accepted: shorter ones are guessable. */
export const MIN_TOKEN_LENGTH = 16;

/** Why `secret` (called `what` in the message) is too weak to use, or undefined. */
export function weakSecretProblem(what: string, secret: string): string | undefined {
  if (secret.length >= MIN_TOKEN_LENGTH && !/\s/.test(secret)) return undefined;
  return `${what} must be at least ${MIN_TOKEN_LENGTH} characters without spaces; generate one with \`openssl rand -hex 32\``;
}
