/**
 * The suite, in the order. A scenario is one file under `scenarios/`; one not built
 * yet stays listed as planned, so that the table shows it as "not built" instead of hiding it.
 */
import type { SuiteEntry } from "../scenario.js";
import { bridgeSigkillScenario } from "./bridge-sigkill.js";
import { controlsScenario } from "./controls.js";
import { fuzzScenario } from "./fuzz.js";
import { longPartsScenario } from "./long-parts.js";
import { malformedRequestsScenario } from "./malformed-requests.js";
import { relayCutsScenario } from "./relay-cuts.js";
import { secretsScanScenario } from "./secrets-scan.js";
import { serverSigkillScenario } from "./server-sigkill.js";
import { sidecarClientsScenario } from "./sidecar-clients.js";
import { soakScenario } from "./soak.js";
import { upstreamCutsScenario } from "./upstream-cuts.js";

export const SUITE: readonly SuiteEntry[] = [
  upstreamCutsScenario,
  serverSigkillScenario,
  bridgeSigkillScenario,
  sidecarClientsScenario,
  controlsScenario,
  longPartsScenario,
  fuzzScenario,
  malformedRequestsScenario,
  soakScenario,
  relayCutsScenario,
  secretsScanScenario,
];
