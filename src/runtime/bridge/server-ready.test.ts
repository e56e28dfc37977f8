/**
 * A send's wait for a managed server: a connection refused while it looks for the model
 * because the server died again is waited out through the next restart, as many times as the
 * supervisor restarts it; a refusal from a server that runs, or once the supervisor gave up,
 * is the send's error.
 */
import { describe, expect, it } from "vitest";
import { ConnectionError, TimeoutError } from "../../errors.js";
import { whenServerReady } from "./server-ready.js";

const refused = () =>
  new ConnectionError("http://127.0.0.1:1/api/model", "could not reach the server");

/** A supervisor whose server dies at each of the first `crashes` looks, then gives up or not. */
function supervisor(state: { died: boolean; ended: boolean }) {
  const waits: number[] = [];
  return {
    waits,
    get died() {
      return state.died;
    },
    get ended() {
      return state.ended;
    },
    restarted: async () => void waits.push(waits.length + 1),
  };
}

describe("whenServerReady", () => {
  it("waits out every crash that cuts the look, through the supervisor's restarts", async () => {
    const state = { died: false, ended: false };
    const server = supervisor(state);
    let looks = 0;
    await whenServerReady(
      server,
      async () => {
        looks += 1;
        state.died = looks <= 12; // more crashes in a row than any fixed count would allow
        if (state.died) throw refused();
      },
      undefined,
    );
    expect(looks).toBe(13);
    expect(server.waits).toHaveLength(13);
  });

  it("allows for the death to show a moment after the look failed", async () => {
    const state = { died: false, ended: false };
    const server = supervisor(state);
    let looks = 0;
    await whenServerReady(
      server,
      async () => {
        looks += 1;
        if (looks > 1) return;
        setTimeout(() => {
          state.died = true;
        }, 50);
        throw refused();
      },
      undefined,
    );
    expect(looks).toBe(2);
  });

  it("gives up once the supervisor did, and at once when the server runs and refuses", async () => {
    const gaveUp = supervisor({ died: true, ended: true });
    const look = async () => {
      throw refused();
    };
    await expect(whenServerReady(gaveUp, look, undefined)).rejects.toBeInstanceOf(ConnectionError);
    expect(gaveUp.waits).toHaveLength(1);
    const running = supervisor({ died: false, ended: false });
    await expect(whenServerReady(running, look, undefined)).rejects.toBeInstanceOf(ConnectionError);
    expect(running.waits).toHaveLength(1);
  });

  it("does not retry other errors, nor without a supervisor", async () => {
    const timeout = new TimeoutError("waiting for the model", 10);
    const server = supervisor({ died: true, ended: false });
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
