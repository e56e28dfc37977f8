/** The legacy-surface (`/session`, `/event`) scenarios beyond the text turn. */
import type { Scenario } from "../scenario.js";
import { legacyBashTool } from "./bash-tool.js";
import { legacyImageAttachment } from "./image-attachment.js";
import { legacyInterruptMidTool } from "./interrupt-mid-tool.js";
import {
  legacyPermissionAlways,
  legacyPermissionOnce,
  legacyPermissionRejected,
} from "./permission.js";
import { legacyProviderError } from "./provider-error.js";
import { legacyQuestionAnswered, legacyQuestionRejected } from "./question.js";
import { legacySteerMidTurn } from "./steer-mid-turn.js";
import { legacySubagent } from "./subagent.js";

export const legacyScenarios: readonly Scenario[] = [
  legacyBashTool as Scenario,
  legacyPermissionOnce as Scenario,
  legacyPermissionRejected as Scenario,
  legacyPermissionAlways as Scenario,
  legacyQuestionAnswered as Scenario,
  legacyQuestionRejected as Scenario,
  legacySteerMidTurn as Scenario,
  legacyInterruptMidTool as Scenario,
  legacyProviderError as Scenario,
  legacySubagent as Scenario,
  legacyImageAttachment as Scenario,
];
