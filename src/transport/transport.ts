/**
 * The seam between the typed client and whatever carries its calls: HTTP to a
 * real server, or (later) a recorder or a replayer of transcripts. Calls are
 * described at the operation level (an OpenCode operation id and a flat input),
 * so a replay transport can match them without knowing URLs.
 */
/**
 * One call: the OpenCode operation id and its flat input (path, query and body fields
 * together). The id is a string because each protocol version has its own set (1.18's
 * `v2.session.prompt` is 2.0's `session.prompt`); a transport rejects ids it cannot carry.
 */
export interface OperationCall {
  operation: string;
  input?: Record<string, unknown>;
  /** The project directory the call is about (sent as `x-opencode-directory` or the query form). */
  directory?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Bound for the whole call; defaults to the transport's own. */
  timeoutMs?: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** No bytes (not even a heartbeat) for this long counts as a disconnect. */
  idleTimeoutMs?: number;
  /**
   * Bound on a connection's response headers (default: the idle bound). A stream whose server
   * sends its headers at once sets a short one: a server that is still starting can take a
   * connection and never answer it, and the stream would wait out the whole bound.
   */
  connectTimeoutMs?: number;
  /** Failed reconnects in a row before the stream gives up (default 10; `Infinity`: never). */
  maxConsecutiveFailures?: number;
  /** Told when the stream connects, and after each failed attempt to (re)connect. */
  onConnection?: (change: StreamConnectionChange) => void;
}

/** How a reconnecting stream fares: connected, or failing to (re)connect `attempt` times in a row. */
export type StreamConnectionChange =
  | { state: "connected" }
  | { state: "reconnecting"; attempt: number; reason: string; retryInMs: number };

export interface Transport {
  /**
   * Performs one request-response operation. Resolves with the body as the server sent it
   * (parsed JSON, `{data}` wrapper included), or `undefined` for 204.
   */
  request(call: OperationCall, options?: CallOptions): Promise<unknown>;
  /**
   * Opens an event-stream operation and yields each event's parsed JSON. It reconnects on
   * its own; `next` is asked for the call before every (re)connect so a cursor can advance.
   */
  stream(next: () => OperationCall, options?: StreamOptions): AsyncIterable<unknown>;
  /**
   * Where a WebSocket operation connects (a PTY's input and output): absent on a transport
   * that reaches no live server (a replay), which then cannot open one.
   */
  socketTarget?(call: OperationCall): SocketTarget;
}

/** A WebSocket's `ws:`/`wss:` URL and the headers of its handshake (auth, location). */
export interface SocketTarget {
  url: string;
  headers: Record<string, string>;
}
