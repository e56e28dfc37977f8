/**
 * The suite, in the order. A scenario is one file under `scenarios/`; one not built
 * yet stays listed as planned, so that the table shows it as "not built" instead of hiding it.
 */
import { planned, type SuiteEntry } from "../scenario.js";
import { bridgeSigkillScenario } from "./bridge-sigkill.js";
import { fuzzScenario } from "./fuzz.js";
import { malformedRequestsScenario } from "./malformed-requests.js";
import { secretsScanScenario } from "./secrets-scan.js";
import { sidecarClientsScenario } from "./sidecar-clients.js";
import { soakScenario } from "./soak.js";

export const SUITE: readonly SuiteEntry[] = [
  planned(
    "upstream-cuts",
    "100 cuts of the upstream connections during one long turn: 0 lost, 0 duplicated, text exact",
  ),
  planned(
    "server-sigkill",
    "the managed server SIGKILLed every few seconds under 5 sessions for 5 minutes: every turn ends once",
  ),
  bridgeSigkillScenario,
  sidecarClientsScenario,
  fuzzScenario,
  malformedRequestsScenario,
  soakScenario,
  secretsScanScenario,
];
