/**
 * `opencode-bridge/client`: the typed client of the sidecar (`ocb serve`), for browsers and
 * Node. Isomorphic: global `fetch` and `WebSocket` (or ones passed in), no Node module.
 */

/** The base of every error of the library and of this client (`instanceof` across both). */
export { OpencodeBridgeError } from "../errors.js";
export type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
  ConnectionState,
  DurableType,
  EphemeralType,
  ErrorInfo,
  FileChange,
  ModelRef,
  Outcome,
  RevertedFile,
  Todo,
  Usage,
} from "../events/canonical.js";
export type {
  AssistantMessage,
  Compacted,
  Conversation,
  ForkedFrom,
  Imported,
  Message,
  Part,
  PermissionPart,
  QuestionPart,
  ReasoningPart,
  Rehydration,
  SubagentPart,
  TextPart,
  ToolPart,
  Undone,
  UserMessage,
} from "../wire/conversation-types.js";
export { type CreateSessionBody, SENT_IMAGE_TYPES } from "../wire/http.js";
export {
  emptyLiveConversation,
  type LiveConversation,
  liveConversationOf,
  type ModelSwitch,
  type PendingAsk,
  type QueuedInput,
  reduceLive,
  type TurnFiles,
} from "../wire/live-conversation.js";
export {
  type AgentInfo,
  BridgeClient,
  type BridgeClientOptions,
  type CommandInfo,
  type CommandResult,
  type ConversationView,
  type FileContent,
  type FileListing,
  type FoundFiles,
  type Health,
  type McpServerInfo,
  type ModelCatalog,
  type OpencodeSession,
  type Pairing,
  type PermissionReply,
  type Project,
  type ProjectCallOptions,
  type RemoteStatus,
  type SendInput,
  type SendResult,
  type SessionChangesView,
  type SessionContextView,
  type SessionInfo,
  type SessionListQuery,
  type SessionPage,
  type SkillInfo,
  type SubscribeOptions,
  type Subscription,
  type Ticket,
  type TodoItem,
  type VcsStatusView,
} from "./bridge-client.js";
export {
  BridgeAbortError,
  BridgeApiError,
  BridgeClientError,
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
} from "./errors.js";
export type { CallOptions, FetchLike } from "./http-caller.js";
export type { InputAttachment, UploadAttachment } from "./send-input.js";
export type {
  ClientConnectionState,
  ConnectionListener,
  ConnectionObservable,
  SocketState,
} from "./socket/connection-state.js";
export type { ReconnectBackoff, SocketOptions } from "./socket/shared-socket.js";
export type { WebSocketConstructor, WebSocketLike } from "./socket/websocket-like.js";
export type { TerminalClosed, TerminalConnection } from "./terminal-connection.js";
