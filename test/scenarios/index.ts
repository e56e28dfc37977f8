/** Every recorded 1.18.33 scenario, by fixture name. */
import type { Scenario } from "./scenario.js";
import { apiTextTurn, legacyTextTurn } from "./text-turn.js";

export const scenarios: readonly Scenario[] = [legacyTextTurn, apiTextTurn] as Scenario[];
