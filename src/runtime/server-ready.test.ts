/**
 * A send's wait for a managed server: a connection refused while it looks for the model (the
 * server died again, its restart not begun) is waited out through the next restart.
 */
import { describe, expect, it } from "vitest";
import { ConnectionError, TimeoutError } from "../errors.js";
import { READY_ATTEMPTS, whenServerReady } from "./server-ready.js";

const refused = () =>
  new ConnectionError("http://127.0.0.1:1/api/model", "could not reach the server");

/** A supervisor that counts the waits for its restart. */
function supervisor() {
  const waits: number[] = [];
  return { waits, restarted: async () => void waits.push(waits.length + 1) };
}

describe("whenServerReady", () => {
  it("waits for the next restart and looks again when the server refused the look", async () => {
    const server = supervisor();
    let looks = 0;
    await whenServerReady(
      server,
      async () => {
        looks += 1;
        if (looks === 1) throw refused();
      },
      undefined,
    );
    expect(looks).toBe(2);
    expect(server.waits).toHaveLength(2);
  });

  it("gives up with the last error after a bounded number of crashes", async () => {
    const server = supervisor();
    const look = async () => {
      throw refused();
    };
    await expect(whenServerReady(server, look, undefined)).rejects.toBeInstanceOf(ConnectionError);
    expect(server.waits).toHaveLength(READY_ATTEMPTS);
  });

  it("does not retry other errors, nor without a supervisor", async () => {
    const timeout = new TimeoutError("waiting for the model", 10);
    const server = supervisor();
    await expect(
      whenServerReady(server, async () => Promise.reject(timeout), undefined),
    ).rejects.toBe(timeout);
    expect(server.waits).toHaveLength(1);
    let looks = 0;
    const look = async () => {
      looks += 1;
      throw refused();
    };
    await expect(whenServerReady(undefined, look, undefined)).rejects.toBeInstanceOf(
      ConnectionError,
    );
    expect(looks).toBe(1);
  });
});
