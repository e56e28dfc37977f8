import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { findFreePort, isPortFree } from "./free-port.js";

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("findFreePort / isPortFree", () => {
  it("returns a port that can be bound, and sees it taken while someone holds it", async () => {
    const port = await findFreePort("127.0.0.1");
    expect(port).toBeGreaterThan(0);
    expect(await isPortFree("127.0.0.1", port)).toBe(true);
    const holder = await listen(port);
    try {
      expect(await isPortFree("127.0.0.1", port)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("rejects for an address this host does not have", async () => {
    await expect(findFreePort("192.0.2.1")).rejects.toThrow(/EADDRNOTAVAIL/);
  });
});
