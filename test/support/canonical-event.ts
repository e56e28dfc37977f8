/** Canonical events made by hand, for unit tests of what reads them (each with an id of its own). */
import { canonical } from "../../src/events/build.js";
import type {
  CanonicalEvent,
  CanonicalEventOf,
  CanonicalType,
} from "../../src/events/canonical.js";

let made = 0;

/** An event of `type` in turn `turnId` (or of no turn), as the serve backend would publish it. */
export function canonicalEvent<T extends CanonicalType>(
  turnId: string | undefined,
  type: T,
  data: CanonicalEventOf<T>["data"],
): CanonicalEvent {
  const native = { backend: "serve" as const, type: "test", id: `native_${++made}` };
  return canonical({ sessionId: "ses_test", turnId, at: 0, native }, 0, type, data);
}
