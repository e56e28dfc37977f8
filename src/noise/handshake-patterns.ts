/**
 * The handshake patterns this library speaks, as the token tables of the Noise spec (sections
 * 7.4, 7.5 and 9). Only these four: each added pattern is more to get right and to test.
 */

/** A handshake pattern name: XX and XXpsk0 for pairing, IK for reconnects, NN unauthenticated. */
export type NoisePattern = "XX" | "XXpsk0" | "IK" | "NN";

/** A token of a message pattern. */
export type NoiseToken = "e" | "s" | "ee" | "es" | "se" | "ss" | "psk";

/** A pattern's pre-messages and messages; messages alternate, the initiator's first. */
export interface HandshakePattern {
  /** Static keys known before the handshake: `true` when that side's `s` is a pre-message. */
  readonly initiatorPreStatic: boolean;
  readonly responderPreStatic: boolean;
  readonly messages: readonly (readonly NoiseToken[])[];
  /** Whether the pattern has a psk modifier, which makes every `e` also MixKey (spec 9.2). */
  readonly psk: boolean;
}

/** The token table of each supported pattern. */
export const HANDSHAKE_PATTERNS: Readonly<Record<NoisePattern, HandshakePattern>> = {
  NN: {
    initiatorPreStatic: false,
    responderPreStatic: false,
    messages: [["e"], ["e", "ee"]],
    psk: false,
  },
  XX: {
    initiatorPreStatic: false,
    responderPreStatic: false,
    messages: [["e"], ["e", "ee", "s", "es"], ["s", "se"]],
    psk: false,
  },
  XXpsk0: {
    initiatorPreStatic: false,
    responderPreStatic: false,
    messages: [
      ["psk", "e"],
      ["e", "ee", "s", "es"],
      ["s", "se"],
    ],
    psk: true,
  },
  IK: {
    initiatorPreStatic: false,
    responderPreStatic: true,
    messages: [
      ["e", "es", "s", "ss"],
      ["e", "ee", "se"],
    ],
    psk: false,
  },
};

/** Whether the side (`initiator` or not) of `pattern` needs its own static key pair. */
export function needsLocalStatic(pattern: HandshakePattern, initiator: boolean): boolean {
  if (initiator ? pattern.initiatorPreStatic : pattern.responderPreStatic) return true;
  // A side sends `s` in the messages it writes: even messages for the initiator.
  return pattern.messages.some(
    (tokens, index) => index % 2 === (initiator ? 0 : 1) && tokens.includes("s"),
  );
}
