import type { CipherState } from "./cipher-state.js";
import {
  HANDSHAKE_PATTERNS,
  type HandshakePattern,
  type NoisePattern,
  type NoiseToken,
  needsLocalStatic,
} from "./handshake-patterns.js";
import {
  checkKeyLength,
  checkKeyPair,
  concat,
  DHLEN,
  dh,
  generateNoiseKeyPair,
  NOISE_MAX_MESSAGE_LENGTH,
  type NoiseKeyPair,
  TAGLEN,
} from "./noise-crypto.js";
import { NoiseError } from "./noise-error.js";
import { NoiseSession } from "./noise-session.js";
import { SymmetricState } from "./symmetric-state.js";

/** The options of one side of a handshake. */
export interface NoiseHandshakeOptions {
  pattern: NoisePattern;
  initiator: boolean;
  /** Bytes both sides must agree on, bound into the handshake hash (e.g. a connection id). */
  prologue?: Uint8Array;
  /** This side's static key pair `s`: required by XX and XXpsk0 (both sides) and IK (both). */
  staticKeyPair?: NoiseKeyPair;
  /** The responder's static public key known in advance: required by, and only for, IK initiators. */
  remoteStaticKey?: Uint8Array;
  /** The 32-byte pre-shared key: required by, and only for, XXpsk0. */
  psk?: Uint8Array;
  /** A fixed ephemeral key pair, ONLY for test vectors: a reused ephemeral breaks the security. */
  ephemeralKeyPair?: NoiseKeyPair;
}

/** The length of the psk the psk patterns take. */
const PSK_LENGTH = 32;

/**
 * One side of a Noise handshake, `Noise_<pattern>_25519_ChaChaPoly_SHA256` (the HandshakeState
 * of spec section 5.3). Write and read messages in turn until `complete`, then `split()` once.
 * A message that fails to read ends it: every later call throws. A call out of turn or an
 * oversize payload throws before anything changes, so the handshake stays as it was.
 */
export class NoiseHandshake {
  readonly #pattern: HandshakePattern;
  readonly #initiator: boolean;
  readonly #symmetric: SymmetricState;
  readonly #s: NoiseKeyPair | undefined;
  readonly #psk: Uint8Array | undefined;
  #e: NoiseKeyPair | undefined;
  #rs: Uint8Array | undefined;
  #re: Uint8Array | undefined;
  #fixedEphemeral: NoiseKeyPair | undefined;
  /** The index of the next message of the pattern. */
  #next = 0;
  #failed = false;
  #split = false;

  constructor(options: NoiseHandshakeOptions) {
    const pattern = HANDSHAKE_PATTERNS[options.pattern];
    if (pattern === undefined) throw new NoiseError(`unsupported Noise pattern ${options.pattern}`);
    const name = options.pattern;
    const side = options.initiator ? "initiator" : "responder";
    if (needsLocalStatic(pattern, options.initiator)) {
      if (options.staticKeyPair === undefined) {
        throw new NoiseError(`the ${name} ${side} needs a staticKeyPair`);
      }
    } else if (options.staticKeyPair !== undefined) {
      throw new NoiseError(`the ${name} ${side} sends no static key: give no staticKeyPair`);
    }
    if (options.staticKeyPair !== undefined) {
      checkKeyPair(options.staticKeyPair, "static");
    }
    const knowsRemoteStatic = options.initiator
      ? pattern.responderPreStatic
      : pattern.initiatorPreStatic;
    if (knowsRemoteStatic) {
      if (options.remoteStaticKey === undefined) {
        throw new NoiseError(`the ${name} ${side} needs the remoteStaticKey it expects`);
      }
      checkKeyLength(options.remoteStaticKey, "remote static key");
    } else if (options.remoteStaticKey !== undefined) {
      // Refused rather than ignored: a caller who passes it expects it to be checked.
      throw new NoiseError(
        `the ${name} ${side} learns the remote static key in the handshake: give no remoteStaticKey ` +
          "and compare remoteStaticKey once it is known",
      );
    }
    if (pattern.psk) {
      if (options.psk === undefined || options.psk.length !== PSK_LENGTH) {
        throw new NoiseError(`${name} needs a psk of ${PSK_LENGTH} bytes`);
      }
    } else if (options.psk !== undefined) {
      throw new NoiseError(`${name} takes no psk`);
    }
    if (options.ephemeralKeyPair !== undefined) {
      checkKeyPair(options.ephemeralKeyPair, "ephemeral");
    }

    this.#pattern = pattern;
    this.#initiator = options.initiator;
    this.#s = options.staticKeyPair;
    this.#rs = options.remoteStaticKey && Uint8Array.from(options.remoteStaticKey);
    this.#psk = options.psk && Uint8Array.from(options.psk);
    this.#fixedEphemeral = options.ephemeralKeyPair;
    this.#symmetric = new SymmetricState(`Noise_${name}_25519_ChaChaPoly_SHA256`);
    this.#symmetric.mixHash(options.prologue ?? new Uint8Array(0));
    // Pre-messages (spec 5.3): the initiator's first, then the responder's.
    if (pattern.initiatorPreStatic) this.#symmetric.mixHash(this.#staticOf(true));
    if (pattern.responderPreStatic) this.#symmetric.mixHash(this.#staticOf(false));
  }

  /** True once every message of the pattern has been written or read. */
  get complete(): boolean {
    return this.#next === this.#pattern.messages.length;
  }

  /** True when it is this side's turn to write (and false once complete or failed). */
  get myTurn(): boolean {
    return !this.#failed && !this.complete && this.#next % 2 === (this.#initiator ? 0 : 1);
  }

  /**
   * The peer's static public key once known: given (IK initiator), or learnt from an
   * authenticated message (XX: message 2 for the initiator, message 3 for the responder).
   */
  get remoteStaticKey(): Uint8Array | undefined {
    return this.#failed || this.#rs === undefined ? undefined : Uint8Array.from(this.#rs);
  }

  /** The handshake hash `h`, for channel binding; only once complete. */
  get handshakeHash(): Uint8Array {
    if (!this.complete) throw new NoiseError("the handshake hash is final only once complete");
    return this.#symmetric.handshakeHash();
  }

  /** Writes this side's next message carrying `payload`; throws if not this side's turn. */
  writeMessage(payload: Uint8Array = new Uint8Array(0)): Uint8Array {
    const tokens = this.#turn(true);
    const length = this.#messageLength(tokens, payload.length);
    if (length > NOISE_MAX_MESSAGE_LENGTH) {
      // Checked before any state changes, so the caller may retry with a shorter payload.
      throw new NoiseError(
        `a payload of ${payload.length} bytes makes a handshake message of ${length} bytes, ` +
          `over the ${NOISE_MAX_MESSAGE_LENGTH} Noise allows`,
      );
    }
    return this.#failing(() => {
      const parts: Uint8Array[] = [];
      for (const token of tokens) {
        switch (token) {
          case "e": {
            const e = this.#fixedEphemeral ?? generateNoiseKeyPair();
            this.#fixedEphemeral = undefined;
            this.#e = e;
            parts.push(e.publicKey);
            this.#mixEphemeral(e.publicKey);
            break;
          }
          case "s":
            parts.push(this.#symmetric.encryptAndHash(this.#staticOf(this.#initiator)));
            break;
          case "psk":
            this.#symmetric.mixKeyAndHash(this.#pskOrThrow());
            break;
          default:
            this.#symmetric.mixKey(this.#dhToken(token));
        }
      }
      parts.push(this.#symmetric.encryptAndHash(payload));
      this.#next += 1;
      return concat(...parts);
    });
  }

  /** Reads the peer's next message and returns its payload; throws NoiseError on any failure. */
  readMessage(message: Uint8Array): Uint8Array {
    const tokens = this.#turn(false);
    return this.#failing(() => {
      if (message.length > NOISE_MAX_MESSAGE_LENGTH) {
        throw new NoiseError(
          `a handshake message of ${message.length} bytes is over the ${NOISE_MAX_MESSAGE_LENGTH} Noise allows`,
        );
      }
      let at = 0;
      const take = (length: number, what: string): Uint8Array => {
        if (message.length - at < length) {
          throw new NoiseError(`handshake message ${this.#next + 1} is too short for its ${what}`);
        }
        at += length;
        return message.subarray(at - length, at);
      };
      for (const token of tokens) {
        switch (token) {
          case "e": {
            const re = Uint8Array.from(take(DHLEN, "ephemeral key"));
            this.#re = re;
            this.#mixEphemeral(re);
            break;
          }
          case "s": {
            const length = DHLEN + (this.#symmetric.hasKey() ? TAGLEN : 0);
            this.#rs = Uint8Array.from(this.#symmetric.decryptAndHash(take(length, "static key")));
            break;
          }
          case "psk":
            this.#symmetric.mixKeyAndHash(this.#pskOrThrow());
            break;
          default:
            this.#symmetric.mixKey(this.#dhToken(token));
        }
      }
      const payload = this.#symmetric.decryptAndHash(message.subarray(at));
      this.#next += 1;
      return Uint8Array.from(payload);
    });
  }

  /**
   * The transport session: the initiator sends with the first CipherState of Split(), the
   * responder with the second. Only once complete, and only once: a second split would reuse
   * the same keys and nonces.
   */
  split(): NoiseSession {
    if (this.#failed) throw new NoiseError("the handshake failed earlier");
    if (!this.complete) throw new NoiseError("the handshake is not complete: nothing to split");
    if (this.#split) throw new NoiseError("the handshake was split already");
    this.#split = true;
    const [c1, c2]: [CipherState, CipherState] = this.#symmetric.split();
    const hash = this.#symmetric.handshakeHash();
    return this.#initiator ? new NoiseSession(c1, c2, hash) : new NoiseSession(c2, c1, hash);
  }

  /** The tokens of the next message if it is this side's to write (or read), else throws. */
  #turn(writing: boolean): readonly NoiseToken[] {
    if (this.#failed) throw new NoiseError("the handshake failed earlier");
    const tokens = this.#pattern.messages[this.#next];
    if (tokens === undefined) throw new NoiseError("the handshake is complete: no more messages");
    if (this.myTurn !== writing) {
      const writer = this.#next % 2 === 0 ? "initiator" : "responder";
      const who = this.#initiator ? "initiator" : "responder";
      throw new NoiseError(
        `handshake message ${this.#next + 1} is the ${writer}'s to write: ` +
          `the ${who} may not ${writing ? "write" : "read"} it`,
      );
    }
    return tokens;
  }

  /** Runs a step that changes the state; a throw leaves the state unusable, so mark it failed. */
  #failing<T>(step: () => T): T {
    try {
      return step();
    } catch (error) {
      this.#failed = true;
      if (error instanceof NoiseError) throw error;
      throw new NoiseError("the Noise handshake failed", { cause: error });
    }
  }

  /** The length of the message `tokens` make around a payload of `payloadLength` bytes. */
  #messageLength(tokens: readonly NoiseToken[], payloadLength: number): number {
    let keyed = this.#symmetric.hasKey();
    let length = 0;
    for (const token of tokens) {
      if (token === "e") {
        length += DHLEN;
        if (this.#pattern.psk) keyed = true;
      } else if (token === "s") {
        length += DHLEN + (keyed ? TAGLEN : 0);
      } else {
        keyed = true;
      }
    }
    return length + payloadLength + (keyed ? TAGLEN : 0);
  }

  /** An `e` token's MixHash, and in psk patterns also its MixKey (spec 9.2). */
  #mixEphemeral(publicKey: Uint8Array): void {
    this.#symmetric.mixHash(publicKey);
    if (this.#pattern.psk) this.#symmetric.mixKey(publicKey);
  }

  /** The DH a token names, with the key pair on this side and the public key on the other. */
  #dhToken(token: "ee" | "es" | "se" | "ss"): Uint8Array {
    // The first letter is the initiator's key, the second the responder's (spec 7.1).
    const [initiatorKey, responderKey] = [token[0], token[1]];
    const localLetter = this.#initiator ? initiatorKey : responderKey;
    const remoteLetter = this.#initiator ? responderKey : initiatorKey;
    const local = localLetter === "e" ? this.#e : this.#s;
    const remote = remoteLetter === "e" ? this.#re : this.#rs;
    if (local === undefined || remote === undefined) {
      throw new NoiseError(`the ${token} token came before the keys it needs`);
    }
    return dh(local, remote);
  }

  /** The static public key of the initiator (`true`) or the responder, from whichever side knows it. */
  #staticOf(initiator: boolean): Uint8Array {
    const key = initiator === this.#initiator ? this.#s?.publicKey : this.#rs;
    if (key === undefined) throw new NoiseError("a static key the pattern needs is missing");
    return key;
  }

  #pskOrThrow(): Uint8Array {
    if (this.#psk === undefined) throw new NoiseError("the pattern needs a psk");
    return this.#psk;
  }
}
