/**
 * The scripted model: a small OpenAI-compatible server that stands in for the
 * LLM behind a real `opencode` binary in tests, and serves as the CLI's demo
 * model. It is not an LLM; its replies are chosen by directives written
 * `[[name args]]` in the last user message:
 *
 * - no directive: `echo: <user text>`
 * - `[[reply TEXT]]` / `[[then TEXT]]`: exactly TEXT
 * - `[[slow N DELAYMS]]`: "tok1 … tokN", one chunk per token, DELAYMS apart
 * - `[[tool NAME {"json":"args"}]]`: a tool call; repeat to chain tools, each
 *   called after the previous result, then `tool NAME returned: <result>`
 * - `[[reasoning TEXT]]`: TEXT as `reasoning_content` before the answer
 * - `[[error STATUS times=N {"json":"body"}]]`: an HTTP error (optionally only N times)
 * - `[[hang]]`: never answer
 *
 * directives.ts holds the exact rules. Every request is recorded
 * (`ScriptedModel.requests`, `waitForRequests(n)`). Mind that OpenCode also
 * sends a title request (no tools offered) for the first prompt of a session:
 * it is recorded and obeys the directives too, except that tool calls are
 * skipped when no tools are offered.
 */
export type { ChatMessage, ContentPart } from "./chat-request.js";
export type { FinalDirective, Script, ToolDirective } from "./directives.js";
export { defaultErrorBody, parseDirectives } from "./directives.js";
export type { Attachment, RecordedRequest } from "./recorded-request.js";
export {
  type ScriptedModel,
  type ScriptedModelOptions,
  scriptedModelId,
  scriptedModelIds,
  startScriptedModel,
  type WaitForRequestsOptions,
} from "./server.js";
