/**
 * Parsing a native frame without ever throwing: a stream must outlive one odd frame, so a
 * frame its parser refuses outright is kept, as an unknown event that says why.
 */
import type { ProtocolIssue } from "../errors.js";
import { describeError } from "../util/describe-error.js";
import type { Parsed } from "./common.js";

/** The native type given to a frame that has no string `type` of its own (or is not JSON). */
export const UNPARSED_TYPE = "unparsed";

/**
 * `parse(raw)`, never throwing: a frame its parser refuses outright (no string `type`, say)
 * passes through as an unknown event with the reason, for the normaliser to keep.
 */
export function parseSafely<Native>(
  parse: (raw: unknown) => Parsed<Native>,
  raw: unknown,
): Parsed<Native> {
  try {
    return parse(raw);
  } catch (error) {
    const type =
      typeof raw === "object" &&
      raw !== null &&
      typeof (raw as { type?: unknown }).type === "string"
        ? (raw as { type: string }).type
        : UNPARSED_TYPE;
    const issues: ProtocolIssue[] = [{ path: [], message: describeError(error) }];
    return { known: false, event: { type, raw }, issues };
  }
}
