import { readFileSync } from "node:fs";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { NoiseHandshake, type NoiseSession, noiseKeyPairFromSecret } from "./index.js";

// fixtures/noise/README.md names the sources; both sides run from the vector's keys, and every
// message, handshake and transport, must come out byte for byte.
const hex = z.string().regex(/^([0-9a-f]{2})*$/);
const Vector = z.strictObject({
  source: z.enum(["cacophony", "flynn/noise"]),
  protocolName: z.string(),
  pattern: z.enum(["XX", "XXpsk0", "IK", "NN"]),
  prologue: hex,
  initiatorStatic: hex.optional(),
  initiatorEphemeral: hex,
  initiatorRemoteStatic: hex.optional(),
  responderStatic: hex.optional(),
  responderEphemeral: hex,
  responderRemoteStatic: hex.optional(),
  psk: hex.optional(),
  handshakeHash: hex.optional(),
  messages: z
    .array(
      z.strictObject({ sender: z.enum(["initiator", "responder"]), payload: hex, ciphertext: hex }),
    )
    .min(1),
});
const { vectors } = z
  .strictObject({ vectors: z.array(Vector).min(1) })
  .parse(
    JSON.parse(readFileSync(new URL("../../fixtures/noise/vectors.json", import.meta.url), "utf8")),
  );

type Vector = z.infer<typeof Vector>;

function sides(vector: Vector): { initiator: NoiseHandshake; responder: NoiseHandshake } {
  const prologue = hexToBytes(vector.prologue);
  const psk = vector.psk === undefined ? {} : { psk: hexToBytes(vector.psk) };
  const keyPair = (secret: string | undefined) =>
    secret === undefined ? {} : { staticKeyPair: noiseKeyPairFromSecret(hexToBytes(secret)) };
  const responderStatic = keyPair(vector.responderStatic);
  // flynn/noise gives no remote static key: the IK initiator knows the responder's public key.
  const remote =
    vector.pattern !== "IK"
      ? {}
      : {
          remoteStaticKey:
            vector.initiatorRemoteStatic === undefined
              ? (responderStatic.staticKeyPair?.publicKey ?? new Uint8Array(0))
              : hexToBytes(vector.initiatorRemoteStatic),
        };
  return {
    initiator: new NoiseHandshake({
      pattern: vector.pattern,
      initiator: true,
      prologue,
      ...psk,
      ...keyPair(vector.initiatorStatic),
      ...remote,
      ephemeralKeyPair: noiseKeyPairFromSecret(hexToBytes(vector.initiatorEphemeral)),
    }),
    responder: new NoiseHandshake({
      pattern: vector.pattern,
      initiator: false,
      prologue,
      ...psk,
      ...responderStatic,
      ephemeralKeyPair: noiseKeyPairFromSecret(hexToBytes(vector.responderEphemeral)),
    }),
  };
}

describe("the Noise test vectors", () => {
  it("include every supported pattern", () => {
    expect(new Set(vectors.map((vector) => vector.pattern))).toEqual(
      new Set(["XX", "XXpsk0", "IK", "NN"]),
    );
  });

  it.each(
    vectors.map((vector, index) => [`${vector.source} #${index} ${vector.protocolName}`, vector]),
  )("%s: every message matches", (_name, vector) => {
    const { initiator, responder } = sides(vector);
    let sessions: { initiator: NoiseSession; responder: NoiseSession } | undefined;
    let index = 0;
    for (const message of vector.messages) {
      const [writer, reader] =
        message.sender === "initiator" ? [initiator, responder] : [responder, initiator];
      const payload = hexToBytes(message.payload);
      if (sessions === undefined) {
        const written = writer.writeMessage(payload);
        expect(bytesToHex(written), `message ${index}`).toBe(message.ciphertext);
        expect(bytesToHex(reader.readMessage(written)), `payload ${index}`).toBe(message.payload);
        if (initiator.complete) {
          expect(responder.complete).toBe(true);
          expect(bytesToHex(initiator.handshakeHash)).toBe(bytesToHex(responder.handshakeHash));
          if (vector.handshakeHash !== undefined) {
            expect(bytesToHex(initiator.handshakeHash)).toBe(vector.handshakeHash);
          }
          sessions = { initiator: initiator.split(), responder: responder.split() };
        }
      } else {
        const [sender, receiver] =
          message.sender === "initiator"
            ? [sessions.initiator, sessions.responder]
            : [sessions.responder, sessions.initiator];
        const written = sender.encrypt(payload);
        expect(bytesToHex(written), `message ${index}`).toBe(message.ciphertext);
        expect(bytesToHex(receiver.decrypt(written)), `payload ${index}`).toBe(message.payload);
      }
      index += 1;
    }
    // Each vector goes past the handshake into transport messages.
    expect(sessions).toBeDefined();
  });
});
