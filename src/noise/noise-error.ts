import { OpencodeBridgeError } from "../errors.js";

/**
 * A Noise handshake or transport message failed: bad options, a message out of turn or too
 * long, or one that does not authenticate. The message says what was wrong, never a key.
 */
export class NoiseError extends OpencodeBridgeError {}
