/** Every recorded 1.18.33 scenario, by fixture name. */
import { apiScenarios } from "./api/index.js";
import { legacyScenarios } from "./legacy/index.js";
import type { Scenario } from "./scenario.js";
import { apiTextTurn, legacyTextTurn } from "./text-turn.js";

export const scenarios: readonly Scenario[] = [
  legacyTextTurn as Scenario,
  apiTextTurn as Scenario,
  ...legacyScenarios,
  ...apiScenarios,
];
