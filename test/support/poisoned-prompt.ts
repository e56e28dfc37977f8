/**
 * A prompt with a text file as media, sent straight to OpenCode's `/api` (not through the
 * bridge, which inlines text files since): on the OpenAI-compatible scripted model it fails its
 * turn and every later turn of the session ("does not support media type text/plain"), as
 * sessions were poisoned before. Resolves with the prompt's message id, which is the input id.
 */
import type { OpencodeServerHandle } from "../../src/server/server-handle.js";

export async function sendPoisonedPrompt(
  server: Pick<OpencodeServerHandle, "url" | "username" | "password">,
  directory: string,
  sessionId: string,
  text = "[[reply poisoned]]",
): Promise<string> {
  const { url, username, password } = server;
  const response = await fetch(
    `${url}/api/session/${sessionId}/prompt?directory=${encodeURIComponent(directory)}`,
    {
      method: "POST",
      headers: {
        ...(password === undefined
          ? {}
          : {
              authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
            }),
        "content-type": "application/json",
      },
      body: JSON.stringify({
        prompt: {
          text,
          files: [{ uri: `data:text/plain;base64,${btoa("hello\n")}`, name: "hello.txt" }],
        },
        delivery: "queue",
      }),
      signal: AbortSignal.timeout(10_000),
    },
  );
  if (response.status !== 200) {
    throw new Error(
      `OpenCode refused the poisoned prompt: ${response.status} ${await response.text()}`,
    );
  }
  return ((await response.json()) as { data: { id: string } }).data.id;
}
