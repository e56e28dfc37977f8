import { describe, expect, it } from "vitest";
import { OpencodeBridgeError } from "../errors.js";
import {
  BridgeAbortError,
  BridgeApiError,
  BridgeClientError,
  BridgeConnectionError,
  BridgeProtocolError,
  BridgeTimeoutError,
} from "./errors.js";

describe("the client's errors", () => {
  it("are BridgeClientErrors and OpencodeBridgeErrors, named by their class, with their cause", () => {
    const cause = new Error("socket hang up");
    const errors = [
      new BridgeApiError({ status: 404, code: "not_found", message: "no such session", cause }),
      new BridgeConnectionError("the sidecar could not be reached", { cause }),
      new BridgeTimeoutError("listing sessions", 5_000, { cause }),
      new BridgeAbortError("listing sessions", { cause }),
      new BridgeProtocolError("an answer of no known shape", { cause }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(BridgeClientError);
      expect(error).toBeInstanceOf(OpencodeBridgeError);
      expect(error.name).toBe(error.constructor.name);
      expect(error.cause).toBe(cause);
    }
    expect(new BridgeClientError("plain").cause).toBeUndefined();
    expect(errors[0]?.message).toBe("no such session (not_found, 404)");
  });
});
