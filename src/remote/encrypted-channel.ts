/**
 * A MessageChannel over a socket whose every frame is one Noise transport message: encrypted
 * with the sender's key and nonce counter, so a frame that the relay (or anyone on the way)
 * altered, replayed, dropped or reordered fails to decrypt, and the channel is closed for good
 * (`BROKEN_CLOSE`): nothing after a gap can be trusted to be in order.
 */
import type { NoiseSession } from "../noise/index.js";
import type { MessageChannel } from "../tunnel/message-channel.js";
import { type BinarySocket, SOCKET_OPEN } from "./binary-socket.js";
import { BROKEN_CLOSE, REVOKED_CLOSE } from "./remote-handshake.js";
import type { SocketInbox } from "./socket-inbox.js";

export function encryptedChannel(
  socket: BinarySocket,
  inbox: SocketInbox,
  session: NoiseSession,
  maxMessageBytes: number,
): MessageChannel {
  const messageListeners = new Set<(message: Uint8Array) => void>();
  const closeListeners = new Set<(code: number, reason: string) => void>();
  let closed: { code: number; reason: string } | undefined;
  const end = (code: number, reason: string): void => {
    if (closed !== undefined) return;
    closed = { code, reason };
    for (const listener of closeListeners) listener(code, reason);
  };
  inbox.onClose((close) => end(close.code, close.reason));
  if (inbox.closed !== undefined) end(inbox.closed.code, inbox.closed.reason);
  const receive = (ciphertext: Uint8Array): void => {
    if (closed !== undefined) return;
    let plaintext: Uint8Array;
    try {
      plaintext = session.decrypt(ciphertext);
    } catch {
      end(BROKEN_CLOSE, "a frame did not decrypt: altered, replayed or out of order");
      closeSocket(socket, BROKEN_CLOSE);
      return;
    }
    for (const listener of messageListeners) listener(plaintext);
  };
  let handedOver = false;
  return {
    maxMessageBytes,
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    send(message) {
      if (closed !== undefined || socket.readyState !== SOCKET_OPEN) return;
      socket.send(session.encrypt(message));
    },
    close(code = 1000, reason = "") {
      end(code, reason);
      closeSocket(socket, code);
    },
    onMessage(listener) {
      messageListeners.add(listener);
      // Messages queued during the handshake go to the first reader, not to nobody.
      if (!handedOver) {
        handedOver = true;
        inbox.handOver(receive);
      }
      return () => messageListeners.delete(listener);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => closeListeners.delete(listener);
    },
  };
}

/**
 * Closes the socket with a code a browser's WebSocket accepts (1000 or 3000-4999: it throws
 * on any other, such as the tunnel's 1002 and 1011, which are sent as `BROKEN_CLOSE`; 1001
 * passes: only the sidecar's end, in Node, closes with it), and a
 * reason that says nothing of the tunnel's traffic: the close frame crosses the relay in clear.
 * The detailed reason stays with this end's listeners.
 */
function closeSocket(socket: BinarySocket, code: number): void {
  const wire =
    code === 1000 || code === 1001 || (code >= 3000 && code <= 4999) ? code : BROKEN_CLOSE;
  try {
    socket.close(wire, WIRE_REASONS[wire] ?? "closed");
  } catch {
    // Closed already, or closing: nothing more to say.
  }
}

/** What a close says on the wire, by code (the device shows it; the relay sees it). */
const WIRE_REASONS: Record<number, string> = {
  1000: "closed",
  1001: "the sidecar stops",
  [BROKEN_CLOSE]: "a frame did not decrypt or broke the protocol",
  [REVOKED_CLOSE]: "this device was revoked",
};
