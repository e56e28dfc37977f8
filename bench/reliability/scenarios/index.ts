/**
 * The suite, in the order. A scenario is one file under `scenarios/`; one not built
 * yet stays listed as planned, so that the table shows it as "not built" instead of hiding it.
 */
import { planned, type SuiteEntry } from "../scenario.js";
import { fuzzScenario } from "./fuzz.js";
import { serverSigkillScenario } from "./server-sigkill.js";
import { upstreamCutsScenario } from "./upstream-cuts.js";

export const SUITE: readonly SuiteEntry[] = [
  upstreamCutsScenario,
  serverSigkillScenario,
  planned(
    "bridge-sigkill",
    "the bridge SIGKILLed mid-turn 20 times and restarted: each turn adopted, ends once, no gap",
  ),
  planned(
    "sidecar-clients",
    "100 sidecar clients connecting, cutting, resuming and sending for 5 minutes: lists equal the store's",
  ),
  fuzzScenario,
  planned(
    "malformed-requests",
    "10,000 malformed sidecar requests: all answered with the documented 4xx, memory flat",
  ),
  planned(
    "soak",
    "10 sessions running turns for 10 minutes: RSS and heap slope flat, handles and fds back",
  ),
  planned(
    "secrets-scan",
    "after all scenarios: no password, token or API key in the store, logs, transcripts or exports",
  ),
];
