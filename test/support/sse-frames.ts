/** The frames of a `text/event-stream` response, comments included, for tests of SSE routes. */
import { createParser } from "eventsource-parser";

export type SseFrame =
  | { kind: "event"; event: string | undefined; id: string | undefined; data: string }
  | { kind: "comment"; comment: string };

/** Reads `response`'s body until it ends (or its request is aborted), one frame at a time. */
export async function* sseFrames(response: Response): AsyncIterable<SseFrame> {
  if (response.body === null) throw new Error(`no body (status ${response.status})`);
  const ready: SseFrame[] = [];
  const parser = createParser({
    onEvent: ({ event, id, data }) => ready.push({ kind: "event", event, id, data }),
    onComment: (comment) => ready.push({ kind: "comment", comment }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    yield* ready.splice(0);
  }
}
