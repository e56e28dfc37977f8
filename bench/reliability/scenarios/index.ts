/**
 * The suite, in the order. A scenario is one file under `scenarios/`; one not built
 * yet stays listed as planned, so that the table shows it as "not built" instead of hiding it.
 */
import { planned, type SuiteEntry } from "../scenario.js";
import { bridgeSigkillScenario } from "./bridge-sigkill.js";
import { fuzzScenario } from "./fuzz.js";
import { malformedRequestsScenario } from "./malformed-requests.js";
import { serverSigkillScenario } from "./server-sigkill.js";
import { sidecarClientsScenario } from "./sidecar-clients.js";
import { upstreamCutsScenario } from "./upstream-cuts.js";

export const SUITE: readonly SuiteEntry[] = [
  upstreamCutsScenario,
  serverSigkillScenario,
  bridgeSigkillScenario,
  sidecarClientsScenario,
  fuzzScenario,
  malformedRequestsScenario,
  planned(
    "soak",
    "10 sessions running turns for 10 minutes: RSS and heap slope flat, handles and fds back",
  ),
  planned(
    "secrets-scan",
    "after all scenarios: no password, token or API key in the store, logs, transcripts or exports",
  ),
];
