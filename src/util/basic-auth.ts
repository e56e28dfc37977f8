/** The `Authorization` header value for HTTP Basic auth (the server password). */
export function basicAuthHeader(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
}
