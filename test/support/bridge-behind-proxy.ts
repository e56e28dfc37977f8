/**
 * A real server with a cutting proxy in front of it and a bridge attached through the proxy:
 * for end-to-end tests in which the network drops (`proxy.cut()`) or the server becomes
 * unreachable (`proxy.refuse()`), while the server itself runs on.
 */
import { Bridge, type BridgeOptions } from "../../src/runtime/bridge/bridge.js";
import { type CuttingProxy, startCuttingProxy } from "./cutting-proxy.js";
import { type RealServer, startRealServer } from "./real-server.js";

export interface BridgeBehindProxy {
  real: RealServer;
  proxy: CuttingProxy;
  bridge: Bridge;
  /** Closes the bridge, the proxy and the server, in that order. */
  close(): Promise<void>;
}

/** Starts the three; `options` go to `Bridge.start` (the scripted model by default). */
export async function startBridgeBehindProxy(
  options: Omit<Partial<BridgeOptions>, "attach" | "directory"> = {},
): Promise<BridgeBehindProxy> {
  const real = await startRealServer();
  let proxy: CuttingProxy | undefined;
  let bridge: Bridge | undefined;
  const close = async () => {
    await bridge?.close();
    await proxy?.close();
    await real.close();
  };
  try {
    proxy = await startCuttingProxy(real.server.url);
    bridge = await Bridge.start({
      directory: real.directory,
      model: { providerID: "demo", modelID: "demo-1" },
      ...options,
      attach: {
        url: proxy.url,
        ...(real.server.password ? { password: real.server.password } : {}),
      },
    });
    return { real, proxy, bridge, close };
  } catch (error) {
    await close();
    throw error;
  }
}
