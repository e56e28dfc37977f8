/**
 * OpenCode's `experimental` config section as the bridge runs it: the user's own section with
 * `continue_loop_on_deny` from `continueAfterReject` merged in, so neither silently wins.
 */
import { UsageError } from "../../errors.js";

/** OpenCode's switch behind `continueAfterReject`. */
export const CONTINUE_ON_DENY_KEY = "continue_loop_on_deny";

/**
 * The user's `config.experimental` with `continue_loop_on_deny` set: from `continueAfterReject`
 * when given, else from the user's section when it sets the key, else `true`. Both set and
 * disagreeing is a UsageError (which was meant cannot be told), as is a section that is not
 * an object.
 */
export function experimentalConfig(
  userExperimental: unknown,
  continueAfterReject: boolean | undefined,
): Record<string, unknown> {
  if (userExperimental === undefined) {
    return { [CONTINUE_ON_DENY_KEY]: continueAfterReject ?? true };
  }
  if (
    typeof userExperimental !== "object" ||
    userExperimental === null ||
    Array.isArray(userExperimental)
  ) {
    throw new UsageError(
      `config.experimental must be an object (OpenCode's experimental settings), got ${JSON.stringify(userExperimental)}`,
    );
  }
  const section = userExperimental as Record<string, unknown>;
  const fromConfig = section[CONTINUE_ON_DENY_KEY];
  if (fromConfig !== undefined && typeof fromConfig !== "boolean") {
    throw new UsageError(
      `config.experimental.${CONTINUE_ON_DENY_KEY} must be true or false, got ${JSON.stringify(fromConfig)}`,
    );
  }
  if (
    continueAfterReject !== undefined &&
    fromConfig !== undefined &&
    continueAfterReject !== fromConfig
  ) {
    throw new UsageError(
      `continueAfterReject is ${continueAfterReject} but config.experimental.${CONTINUE_ON_DENY_KEY} ` +
        `is ${fromConfig}: they are the same setting; set one of them`,
    );
  }
  return { ...section, [CONTINUE_ON_DENY_KEY]: continueAfterReject ?? fromConfig ?? true };
}
