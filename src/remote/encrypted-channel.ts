/**
 * A MessageChannel over a socket whose every frame is one Noise transport message: encrypted
 * with the sender's key and nonce counter, so a frame that the relay (or anyone on the way)
 * altered, replayed, dropped or reordered fails to decrypt, and the channel is closed for good
 * (`BROKEN_CLOSE`): nothing after a gap can be trusted to be in order.
 */
import type { NoiseSession } from "../noise/index.js";
import type { MessageChannel } from "../tunnel/message-channel.js";
import { type BinarySocket, SOCKET_OPEN } from "./binary-socket.js";
import { BROKEN_CLOSE } from "./remote-handshake.js";
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
      const reason = "a frame did not decrypt: altered, replayed or out of order";
      socket.close(BROKEN_CLOSE, reason);
      end(BROKEN_CLOSE, reason);
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
      socket.close(code, reason);
      end(code, reason);
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
