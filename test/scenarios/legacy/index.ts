/** The legacy-surface (`/session`, `/event`) scenarios beyond the text turn. */
import type { Scenario } from "../scenario.js";

export const legacyScenarios: readonly Scenario[] = [];
