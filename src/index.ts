/**
 * opencode-bridge: drive the OpenCode coding agent reliably.
 *
 * The root entry is the canonical API: the bridge, its sessions and turns, the canonical events,
 * errors, servers and the store. OpenCode's wire schemas and typed clients are in
 * `opencode-bridge/protocol`; helpers for tests in `opencode-bridge/testing`. Every change of
 * what this file exports shows in `api/*.api.d.ts` (`npm run api:report`).
 */
export type { AgentInfo } from "./backends/agents.js";
export type { AttachmentSpec } from "./backends/attachments.js";
export type { BackendKind } from "./backends/backend.js";
export type { Capabilities } from "./backends/capabilities.js";
export type { CommandInfo } from "./backends/commands.js";
export type { FileDiff, SessionChanges, VcsStatus } from "./backends/file-changes.js";
export type {
  FileContent,
  FileEntry,
  FileEntryType,
  FileListing,
  FindFilesOptions,
  FoundFile,
  FoundFiles,
  SessionFiles,
} from "./backends/files/session-files.js";
export type { McpServerInfo } from "./backends/mcp-servers.js";
export type { SkillInfo } from "./backends/skills.js";
export type { Terminal, TerminalEnd, TerminalSize } from "./backends/terminal.js";
export {
  AbortError,
  type BridgeErrorOptions,
  ConnectionError,
  OpencodeApiError,
  OpencodeBridgeError,
  ProtocolError,
  type ProtocolIssue,
  SendOutcomeUnknownError,
  ServerStartError,
  TimeoutError,
  UnknownModelError,
  UsageError,
} from "./errors.js";
export {
  assertNever,
  type CanonicalEvent,
  type CanonicalEventOf,
  type CanonicalType,
  type ConnectionState,
  type DurableEventData,
  type DurableType,
  type EphemeralEventData,
  type EphemeralType,
  type ErrorInfo,
  type EventData,
  type FileChange,
  isCanonicalType,
  isDurableType,
  type ModelRef,
  type NativeOrigin,
  type Outcome,
  type RevertedFile,
  type Todo,
  type Usage,
} from "./events/canonical.js";
export type { DeltaStats } from "./events/delta-stats.js";
export {
  connectToRelay,
  type IncomingConnection,
  type RelayConnector,
  type RelayConnectorOptions,
  type RelayConnectorState,
} from "./relay/relay-connector.js";
export {
  generateRelayIdentity,
  type RelayIdentity,
  sidecarIdOf,
} from "./relay/relay-identity.js";
export {
  defaultRelayIdentityPath,
  loadOrCreateRelayIdentity,
  readRelayIdentity,
} from "./relay/relay-identity-file.js";
export type { RelayLimits } from "./relay/relay-limits.js";
export type { RelayLogSink } from "./relay/relay-log.js";
export { type Relay, type RelayOptions, startRelay } from "./relay/relay-server.js";
export type { WebSocket as RelaySocket } from "./relay/relay-ws.js";
export type {
  BinarySocket,
  BinarySocketConstructor,
} from "./remote/binary-socket.js";
export {
  connectDevice,
  type DeviceConnectOptions,
  pairDevice,
  type RemoteConnection,
} from "./remote/device-connection.js";
export {
  type PairedSidecar,
  type PairedSidecarJson,
  pairedSidecarFromJson,
  pairedSidecarToJson,
} from "./remote/paired-sidecar.js";
export { isPairingLink, type PairingOffer, parsePairingLink } from "./remote/pairing-link.js";
export { RemoteAccessError, type RemoteFailure } from "./remote/remote-errors.js";
export {
  type RemoteTransport,
  RemoteWebSocket,
  remoteTransport,
} from "./remote/remote-transport.js";
export {
  Bridge,
  type BridgeOptions,
  type CloseOptions,
  type LeftRunning,
} from "./runtime/bridge/bridge.js";
export type { PermissionPreset } from "./runtime/bridge/permission-presets.js";
export type { ReconnectPolicy } from "./runtime/bridge/reconnect-policy.js";
export type {
  AskTimeout,
  ChildSession,
  CommandRun,
  Delivery,
  PendingAsk,
  SendOptions,
  Session,
  SessionStats,
} from "./runtime/session/session.js";
export type { SessionContext } from "./runtime/session/session-context.js";
export type { Turn, TurnResult } from "./runtime/session/turn.js";
export type { WatchdogBounds } from "./runtime/session/watchdog.js";
export { type AttachOpencodeOptions, attachOpencode } from "./server/attach-opencode.js";
export type {
  SandboxMode,
  SandboxNetwork,
  SandboxOptions,
} from "./server/sandbox/sandbox-options.js";
export type { OpencodeServerHandle, ServerExit } from "./server/server-handle.js";
export { type StartOpencodeOptions, startOpencode } from "./server/start-opencode.js";
export { readStoreKeyFile } from "./store/encryption/key-file.js";
export {
  parseStoreKeys,
  type StoreKey,
  type StoreKeyring,
  type StoreKeySource,
} from "./store/encryption/store-keys.js";
export { type OpenStoreOptions, openStore } from "./store/open-store.js";
export {
  type PostgresConnectionOptions,
  type PostgresEncryptionOptions,
  PostgresStore,
} from "./store/postgres-store.js";
export { SqliteStore, type SqliteStoreOptions } from "./store/sqlite-store.js";
export type { ReadOptions, ServerRecord, SessionRecord, Store } from "./store/store.js";
export {
  type UnixSocketTransport,
  unixSocketTransport,
} from "./tunnel/unix-socket-transport.js";
export type { Logger } from "./util/logger.js";
export {
  type AssistantMessage,
  type Conversation,
  conversationOf,
  type ForkedFrom,
  type Imported,
  type Message,
  type Part,
  type PermissionPart,
  type QuestionPart,
  type ReasoningPart,
  type Rehydration,
  type SubagentPart,
  type TextPart,
  type ToolPart,
  type Undone,
  type UserMessage,
} from "./wire/conversation.js";
