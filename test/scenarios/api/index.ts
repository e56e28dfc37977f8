/** The `/api`-surface scenarios beyond the text turn. */
import type { Scenario } from "../scenario.js";

export const apiScenarios: readonly Scenario[] = [];
