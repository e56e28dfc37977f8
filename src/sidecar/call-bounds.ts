/** The bound on a call a request makes into the bridge: a timeout and the sidecar's stop. */
import { anySignalWithTimeout } from "../util/timeout-signal.js";
import type { SidecarContext } from "./context.js";

/**
 * A signal for one call into the bridge. Not tied to the client's connection on purpose: a
 * send whose client went away still completes, so that the retry with the same idempotency
 * key gets its answer instead of admitting the input twice.
 */
export function callSignal(
  ctx: SidecarContext,
  timeoutMs = ctx.limits.requestTimeoutMs,
): AbortSignal {
  return anySignalWithTimeout([ctx.stopping], timeoutMs);
}
