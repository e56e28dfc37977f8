import { describe, expect, it } from "vitest";
import {
  generateNoiseKeyPair,
  NOISE_MAX_MESSAGE_LENGTH,
  NOISE_MAX_PLAINTEXT_LENGTH,
  NoiseError,
  NoiseHandshake,
  type NoiseHandshakeOptions,
  type NoiseKeyPair,
  type NoisePattern,
  type NoiseSession,
} from "./index.js";

const PATTERNS: readonly NoisePattern[] = ["NN", "XX", "XXpsk0", "IK"];
const MESSAGES: Readonly<Record<NoisePattern, number>> = { NN: 2, XX: 3, XXpsk0: 3, IK: 2 };
const text = (value: string) => new TextEncoder().encode(value);
const read = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

interface Party {
  keys: NoiseKeyPair;
  handshake: NoiseHandshake;
}

// Random static keys, made once: the handshakes below are many, and each still makes fresh
// ephemeral keys, which is what differs from one run to the next.
const STATIC_KEYS = {
  initiatorKeys: generateNoiseKeyPair(),
  responderKeys: generateNoiseKeyPair(),
};

/**
 * Both sides of `pattern` with the static keys above; `initiator` / `responder` override their
 * options.
 */
function pair(
  pattern: NoisePattern,
  overrides: {
    initiator?: Partial<NoiseHandshakeOptions>;
    responder?: Partial<NoiseHandshakeOptions>;
  } = {},
): { initiator: Party; responder: Party } {
  const { initiatorKeys, responderKeys } = STATIC_KEYS;
  const psk = pattern === "XXpsk0" ? { psk: crypto.getRandomValues(new Uint8Array(32)) } : {};
  const prologue = text("relay connection 42");
  const statics = pattern !== "NN";
  return {
    initiator: {
      keys: initiatorKeys,
      handshake: new NoiseHandshake({
        pattern,
        initiator: true,
        prologue,
        ...psk,
        ...(statics ? { staticKeyPair: initiatorKeys } : {}),
        ...(pattern === "IK" ? { remoteStaticKey: responderKeys.publicKey } : {}),
        ...overrides.initiator,
      }),
    },
    responder: {
      keys: responderKeys,
      handshake: new NoiseHandshake({
        pattern,
        initiator: false,
        prologue,
        ...psk,
        ...(statics ? { staticKeyPair: responderKeys } : {}),
        ...overrides.responder,
      }),
    },
  };
}

/**
 * Runs the handshake, `change` altering message `index` in flight. Answers the index of the
 * message whose read threw (and the error), or undefined when every message was read.
 */
function run(
  initiator: NoiseHandshake,
  responder: NoiseHandshake,
  change?: { index: number; alter: (message: Uint8Array) => Uint8Array },
): { failedAt: number; error: unknown } | undefined {
  for (let index = 0; !initiator.complete || !responder.complete; index++) {
    const [writer, reader] = index % 2 === 0 ? [initiator, responder] : [responder, initiator];
    let message = writer.writeMessage(text(`payload ${index}`));
    if (change?.index === index) message = change.alter(message);
    let payload: Uint8Array;
    try {
      payload = reader.readMessage(message);
    } catch (error) {
      return { failedAt: index, error };
    }
    // A payload sent before any key is plaintext (message 1 of NN and XX): altered, it reads
    // as altered, and the change is caught at the next message's tag instead.
    if (change === undefined) expect(read(payload)).toBe(`payload ${index}`);
  }
  return undefined;
}

function flipBit(byte: number, bit: number) {
  return (message: Uint8Array) => {
    const copy = Uint8Array.from(message);
    copy[byte] = (copy[byte] ?? 0) ^ (1 << bit);
    return copy;
  };
}

function sessions(pattern: NoisePattern): { initiator: NoiseSession; responder: NoiseSession } {
  const { initiator, responder } = pair(pattern);
  expect(run(initiator.handshake, responder.handshake)).toBeUndefined();
  return { initiator: initiator.handshake.split(), responder: responder.handshake.split() };
}

describe.each(PATTERNS)("Noise_%s_25519_ChaChaPoly_SHA256", (pattern) => {
  it("completes between two parties with random keys and carries transport both ways", () => {
    const { initiator, responder } = pair(pattern);
    expect(run(initiator.handshake, responder.handshake)).toBeUndefined();
    expect(initiator.handshake.complete && responder.handshake.complete).toBe(true);
    expect(initiator.handshake.handshakeHash).toEqual(responder.handshake.handshakeHash);
    if (pattern !== "NN") {
      expect(initiator.handshake.remoteStaticKey).toEqual(responder.keys.publicKey);
      expect(responder.handshake.remoteStaticKey).toEqual(initiator.keys.publicKey);
    } else {
      expect(responder.handshake.remoteStaticKey).toBeUndefined();
    }
    const a = initiator.handshake.split();
    const b = responder.handshake.split();
    expect(a.handshakeHash).toEqual(b.handshakeHash);
    for (let round = 0; round < 3; round++) {
      const there = a.encrypt(text(`to responder ${round}`));
      expect(read(there)).not.toContain("responder");
      expect(read(b.decrypt(there))).toBe(`to responder ${round}`);
      expect(read(a.decrypt(b.encrypt(text(`to initiator ${round}`))))).toBe(
        `to initiator ${round}`,
      );
    }
    // The two directions use different keys: a message cannot be reflected back to its sender.
    const reflected = pair(pattern);
    run(reflected.initiator.handshake, reflected.responder.handshake);
    const sender = reflected.initiator.handshake.split();
    expect(() => sender.decrypt(sender.encrypt(text("echo")))).toThrow(NoiseError);
  });

  it("fails with NoiseError on a flipped bit anywhere in any handshake message", () => {
    for (let index = 0; index < MESSAGES[pattern]; index++) {
      const length = messageLength(pattern, index);
      // Every third byte and the last, a different bit each time: every field (keys, tags,
      // payload) is hit many times, at a third of the X25519 work of every byte.
      const bytes = [...Array.from({ length: Math.ceil(length / 3) }, (_, i) => i * 3), length - 1];
      for (const byte of bytes) {
        const { initiator, responder } = pair(pattern);
        const failure = run(initiator.handshake, responder.handshake, {
          index,
          alter: flipBit(byte, byte % 8),
        });
        expect(failure, `message ${index} byte ${byte}`).toBeDefined();
        expect(failure?.error).toBeInstanceOf(NoiseError);
        // Caught at the latest by the next message with a tag, so never both sides complete.
        expect(initiator.handshake.complete && responder.handshake.complete).toBe(false);
      }
    }
  });

  it("refuses writing and reading out of turn, and more messages once complete", () => {
    const { initiator, responder } = pair(pattern);
    expect(() => responder.handshake.writeMessage()).toThrow(/message 1 is the initiator's/);
    expect(() => initiator.handshake.readMessage(new Uint8Array(48))).toThrow(
      /the initiator may not read it/,
    );
    const first = initiator.handshake.writeMessage();
    expect(() => initiator.handshake.writeMessage()).toThrow(/message 2 is the responder's/);
    // A refused call changes nothing: the handshake goes on.
    responder.handshake.readMessage(first);
    expect(run2(initiator.handshake, responder.handshake, 1)).toBe(true);
    expect(() => initiator.handshake.writeMessage()).toThrow(/complete/);
    expect(() => responder.handshake.readMessage(new Uint8Array(64))).toThrow(/complete/);
  });

  it("splits only once complete, and only once", () => {
    const { initiator, responder } = pair(pattern);
    expect(() => initiator.handshake.split()).toThrow(/not complete/);
    expect(() => initiator.handshake.handshakeHash).toThrow(NoiseError);
    responder.handshake.readMessage(initiator.handshake.writeMessage());
    expect(() => responder.handshake.split()).toThrow(/not complete/);
    run2(initiator.handshake, responder.handshake, 1);
    initiator.handshake.split();
    expect(() => initiator.handshake.split()).toThrow(/split already/);
  });

  it("fails when the two sides' prologues differ", () => {
    const { initiator, responder } = pair(pattern, { responder: { prologue: text("other") } });
    const failure = run(initiator.handshake, responder.handshake);
    expect(failure?.error).toBeInstanceOf(NoiseError);
    // The first message with a tag authenticates h, which the prologue went into.
    expect(failure?.failedAt).toBe(pattern === "NN" || pattern === "XX" ? 1 : 0);
  });
});

/** Runs the handshake on from message `from`, no tampering; true once both are complete. */
function run2(initiator: NoiseHandshake, responder: NoiseHandshake, from: number): boolean {
  for (let index = from; !initiator.complete || !responder.complete; index++) {
    const [writer, reader] = index % 2 === 0 ? [initiator, responder] : [responder, initiator];
    reader.readMessage(writer.writeMessage());
  }
  return initiator.complete && responder.complete;
}

/** The length of message `index` of `pattern` with the payloads `run` sends. */
function messageLength(pattern: NoisePattern, index: number): number {
  const { initiator, responder } = pair(pattern);
  let length = 0;
  for (let at = 0; at <= index; at++) {
    const [writer, reader] = at % 2 === 0 ? [initiator, responder] : [responder, initiator];
    const message = writer.handshake.writeMessage(text(`payload ${at}`));
    reader.handshake.readMessage(message);
    length = message.length;
  }
  return length;
}

describe("the handshake's authentication", () => {
  it("XX: the responder learns the initiator's static key only from message 3", () => {
    const { initiator, responder } = pair("XX");
    responder.handshake.readMessage(initiator.handshake.writeMessage());
    expect(initiator.handshake.remoteStaticKey).toBeUndefined();
    const second = responder.handshake.writeMessage();
    expect(responder.handshake.remoteStaticKey).toBeUndefined();
    initiator.handshake.readMessage(second);
    expect(initiator.handshake.remoteStaticKey).toEqual(responder.keys.publicKey);
    const third = initiator.handshake.writeMessage();
    expect(responder.handshake.remoteStaticKey).toBeUndefined();
    responder.handshake.readMessage(third);
    expect(responder.handshake.remoteStaticKey).toEqual(initiator.keys.publicKey);
  });

  it("XXpsk0: a wrong psk fails on the responder at message 1, even with an empty payload", () => {
    // psk0 mixes the psk in before `e`, so message 1's payload is already encrypted under it:
    // its tag is the first authenticated point, and the responder reads it.
    const { initiator, responder } = pair("XXpsk0", {
      responder: { psk: crypto.getRandomValues(new Uint8Array(32)) },
    });
    const first = initiator.handshake.writeMessage();
    expect(first.length).toBe(32 + 16);
    expect(() => responder.handshake.readMessage(first)).toThrow(NoiseError);
    expect(() => responder.handshake.writeMessage()).toThrow(/failed earlier/);
    expect(responder.handshake.remoteStaticKey).toBeUndefined();
  });

  it("XXpsk0: the same psk on both sides completes (the failure above is the psk's)", () => {
    const psk = crypto.getRandomValues(new Uint8Array(32));
    const { initiator, responder } = pair("XXpsk0", { initiator: { psk }, responder: { psk } });
    expect(run(initiator.handshake, responder.handshake)).toBeUndefined();
  });

  it("IK: an initiator with a wrong remoteStaticKey fails on the responder at message 1", () => {
    const { initiator, responder } = pair("IK", {
      initiator: { remoteStaticKey: generateNoiseKeyPair().publicKey },
    });
    const failure = run(initiator.handshake, responder.handshake);
    expect(failure?.failedAt).toBe(0);
    expect(failure?.error).toBeInstanceOf(NoiseError);
    expect(responder.handshake.remoteStaticKey).toBeUndefined();
  });

  it("refuses a low-order ephemeral key from the peer with NoiseError", () => {
    const { initiator } = pair("XX");
    initiator.handshake.writeMessage();
    // An all-zero public key makes X25519's output all zero: noble refuses it.
    expect(() => initiator.handshake.readMessage(new Uint8Array(32 + 48 + 16))).toThrow(NoiseError);
  });

  it("refuses a truncated handshake message", () => {
    const { initiator, responder } = pair("IK");
    const first = initiator.handshake.writeMessage();
    expect(() => responder.handshake.readMessage(first.subarray(0, 40))).toThrow(/too short/);
  });
});

describe("the handshake's options", () => {
  const keys = generateNoiseKeyPair();
  it.each<[string, NoiseHandshakeOptions, RegExp]>([
    ["XX without s", { pattern: "XX", initiator: true }, /needs a staticKeyPair/],
    ["IK responder without s", { pattern: "IK", initiator: false }, /needs a staticKeyPair/],
    [
      "IK initiator without rs",
      { pattern: "IK", initiator: true, staticKeyPair: keys },
      /needs the remoteStaticKey/,
    ],
    [
      "XX with rs",
      { pattern: "XX", initiator: true, staticKeyPair: keys, remoteStaticKey: keys.publicKey },
      /give no remoteStaticKey/,
    ],
    ["NN with s", { pattern: "NN", initiator: true, staticKeyPair: keys }, /no staticKeyPair/],
    ["XXpsk0 without psk", { pattern: "XXpsk0", initiator: true, staticKeyPair: keys }, /psk/],
    [
      "XXpsk0 with a short psk",
      { pattern: "XXpsk0", initiator: true, staticKeyPair: keys, psk: new Uint8Array(31) },
      /psk of 32 bytes/,
    ],
    [
      "XX with a psk",
      { pattern: "XX", initiator: true, staticKeyPair: keys, psk: new Uint8Array(32) },
      /takes no psk/,
    ],
    [
      "IK with a short rs",
      { pattern: "IK", initiator: true, staticKeyPair: keys, remoteStaticKey: new Uint8Array(31) },
      /32 bytes/,
    ],
    [
      "a static key pair whose halves do not match",
      {
        pattern: "XX",
        initiator: true,
        staticKeyPair: { publicKey: generateNoiseKeyPair().publicKey, secretKey: keys.secretKey },
      },
      /not that of its secret key/,
    ],
  ])("refuses %s", (_name, options, message) => {
    expect(() => new NoiseHandshake(options)).toThrow(message);
    expect(() => new NoiseHandshake(options)).toThrow(NoiseError);
  });

  it("never puts key material in an error message", () => {
    const { initiator, responder } = pair("XXpsk0", {
      responder: { psk: crypto.getRandomValues(new Uint8Array(32)) },
    });
    const failure = run(initiator.handshake, responder.handshake);
    const message = String((failure?.error as Error | undefined)?.message);
    expect(message).not.toMatch(/[0-9a-f]{16}/i);
    expect(message.length).toBeGreaterThan(0);
  });
});

describe("message size limits", () => {
  it("refuses a handshake payload that makes the message longer than 65535, changing nothing", () => {
    const { initiator, responder } = pair("XX");
    // Message 1 of XX is `e` then the plaintext payload: 32 + payload bytes.
    expect(() => initiator.handshake.writeMessage(new Uint8Array(65535 - 32 + 1))).toThrow(
      /over the 65535/,
    );
    const first = initiator.handshake.writeMessage(new Uint8Array(65535 - 32));
    expect(first.length).toBe(NOISE_MAX_MESSAGE_LENGTH);
    expect(responder.handshake.readMessage(first).length).toBe(65535 - 32);
    // Message 2 carries e, s with its tag, and the payload's tag: 32 + 48 + 16 bytes around it.
    expect(() => responder.handshake.writeMessage(new Uint8Array(65535 - 96 + 1))).toThrow(
      /over the 65535/,
    );
    expect(responder.handshake.writeMessage(new Uint8Array(65535 - 96)).length).toBe(65535);
  });

  it("refuses to read a handshake message longer than 65535", () => {
    const { responder } = pair("NN");
    expect(() => responder.handshake.readMessage(new Uint8Array(65536))).toThrow(/over the 65535/);
  });

  it("refuses a transport plaintext over NOISE_MAX_PLAINTEXT_LENGTH without breaking", () => {
    expect(NOISE_MAX_PLAINTEXT_LENGTH).toBe(65535 - 16);
    const { initiator, responder } = sessions("NN");
    expect(() => initiator.encrypt(new Uint8Array(NOISE_MAX_PLAINTEXT_LENGTH + 1))).toThrow(
      /over the 65519/,
    );
    const largest = initiator.encrypt(new Uint8Array(NOISE_MAX_PLAINTEXT_LENGTH));
    expect(largest.length).toBe(NOISE_MAX_MESSAGE_LENGTH);
    expect(responder.decrypt(largest).length).toBe(NOISE_MAX_PLAINTEXT_LENGTH);
  });

  it("refuses a transport message over 65535 and breaks the session", () => {
    const { initiator, responder } = sessions("NN");
    expect(() => responder.decrypt(new Uint8Array(65536))).toThrow(/over the 65535/);
    expect(responder.broken).toBe(true);
    expect(() => responder.decrypt(initiator.encrypt(text("fine")))).toThrow(/broke/);
  });
});

describe("the transport session", () => {
  it.each(PATTERNS)("%s: a flipped bit anywhere in a transport message breaks it", (pattern) => {
    const sample = sessions(pattern).initiator.encrypt(text("hello there"));
    for (let byte = 0; byte < sample.length; byte++) {
      const { initiator, responder } = sessions(pattern);
      const genuine = initiator.encrypt(text("hello there"));
      expect(() => responder.decrypt(flipBit(byte, byte % 8)(genuine))).toThrow(NoiseError);
      expect(responder.broken).toBe(true);
      // Broken for good: not even the genuine message is read now, nor can it send.
      expect(() => responder.decrypt(genuine)).toThrow(/broke on an earlier failure/);
      expect(() => responder.encrypt(text("reply"))).toThrow(/broke on an earlier failure/);
    }
  });

  it("refuses a replayed message and breaks", () => {
    const { initiator, responder } = sessions("XX");
    const first = initiator.encrypt(text("one"));
    const second = initiator.encrypt(text("two"));
    expect(read(responder.decrypt(first))).toBe("one");
    expect(() => responder.decrypt(first)).toThrow(/failed authentication/);
    expect(() => responder.decrypt(second)).toThrow(/broke/);
  });

  it("refuses messages out of order and breaks", () => {
    const { initiator, responder } = sessions("IK");
    const first = initiator.encrypt(text("one"));
    const second = initiator.encrypt(text("two"));
    expect(() => responder.decrypt(second)).toThrow(NoiseError);
    expect(() => responder.decrypt(first)).toThrow(/broke/);
  });

  it("refuses a message shorter than its tag and breaks", () => {
    const { responder } = sessions("NN");
    expect(() => responder.decrypt(new Uint8Array(15))).toThrow(/shorter than its tag/);
    expect(responder.broken).toBe(true);
  });

  it("carries an empty plaintext as a bare tag", () => {
    const { initiator, responder } = sessions("NN");
    const empty = initiator.encrypt(new Uint8Array(0));
    expect(empty.length).toBe(16);
    expect(responder.decrypt(empty).length).toBe(0);
  });

  it("a session from another handshake cannot read this one's messages", () => {
    const one = sessions("XX");
    const other = sessions("XX");
    expect(() => other.responder.decrypt(one.initiator.encrypt(text("private")))).toThrow(
      NoiseError,
    );
  });
});
