/** The `/api`-surface scenarios beyond the text turn. */
import type { Scenario } from "../scenario.js";
import { apiBashTool } from "./bash-tool.js";
import { apiQueueBehindTurn, apiSteerMidTool, apiSteerMidTurn } from "./delivery.js";
import { apiImageAttachment } from "./image-attachment.js";
import { apiInterruptMidTool } from "./interrupt.js";
import { apiPermissionAlways, apiPermissionOnce, apiPermissionRejected } from "./permission.js";
import { apiProviderError } from "./provider-error.js";
import { apiQuestionAnswered, apiQuestionRejected } from "./question.js";

/*
 * No api-subagent: OpenCode 1.18.33's /api runtime offers the model a fixed set of built-in
 * tools without `task` (a task call fails "Unknown tool: task"), and an agent mention in the
 * prompt (`prompt.agents`) is passed to the primary agent as plain text.
 */
export const apiScenarios: readonly Scenario[] = [
  apiBashTool as Scenario,
  apiSteerMidTurn as Scenario,
  apiSteerMidTool as Scenario,
  apiQueueBehindTurn as Scenario,
  apiInterruptMidTool as Scenario,
  apiProviderError as Scenario,
  apiPermissionOnce as Scenario,
  apiPermissionRejected as Scenario,
  apiPermissionAlways as Scenario,
  apiQuestionAnswered as Scenario,
  apiQuestionRejected as Scenario,
  apiImageAttachment as Scenario,
];
