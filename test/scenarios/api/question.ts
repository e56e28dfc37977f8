/**
 * The `question` tool, answered with a choice or rejected. Like a permission ask, the question
 * is on the live stream only (`question.v2.asked`), so the scenarios read it there (as far as
 * the ask, no further) and follow the rest on the durable stream. Answering (or rejecting)
 * also publishes `question.v2.replied` (`question.v2.rejected`) on the live stream, which the
 * scenarios do not read: the durable stream shows what the answer did to the tool call.
 */
import { expect } from "vitest";
import { ANSWERED_OUTPUT, ANSWERS, QUESTION_PROMPT, QUESTIONS } from "../question-tool.js";
import { type ScenarioContext, scenario } from "../scenario.js";
import {
  checkAnsweredRun,
  checkRejectedRun,
  followRejected,
  followToSettled,
  promptAskAndAnswer,
  QUESTION_ASK,
  type QuestionAsked,
} from "./asks.js";
import type { ApiEventOf } from "./follow.js";

/** The ask carries the questions as the tool was called with them, and names that call. */
function checkAsk(
  ask: QuestionAsked,
  sessionID: string,
  called: ApiEventOf<"session.next.tool.called"> | undefined,
): void {
  expect(ask.data).toEqual({
    id: expect.stringMatching(/^que_/),
    sessionID,
    questions: QUESTIONS,
    tool: { messageID: called?.data.assistantMessageID, callID: called?.data.callID },
  });
}

/** Prompts the question, waits for its ask on the live stream, and answers it with `answer`. */
function questionAskedAndAnswered(
  context: ScenarioContext,
  title: string,
  answer: "reply" | "reject",
) {
  return promptAskAndAnswer(
    context,
    title,
    QUESTION_PROMPT,
    QUESTION_ASK,
    (client, sessionID, requestID) =>
      answer === "reply"
        ? client.v2.session.question.reply({ sessionID, requestID, answers: ANSWERS })
        : client.v2.session.question.reject({ sessionID, requestID }),
  );
}

export const apiQuestionAnswered = scenario({
  name: "api-question-answered",
  surface: "api",
  description:
    "question tool: the ask is on the live stream (question.v2.asked); answered [[a]], the tool succeeds and the turn ends",
  async run(context) {
    return followToSettled(await questionAskedAndAnswered(context, "question answered", "reply"));
  },
  check(result) {
    const called = checkAnsweredRun(result, "question.v2.asked", {
      name: "question",
      input: { questions: QUESTIONS },
      content: [{ type: "text", text: ANSWERED_OUTPUT }],
      text: "answered",
    });
    checkAsk(result.ask, result.sessionID, called);
  },
});

export const apiQuestionRejected = scenario({
  name: "api-question-rejected",
  surface: "api",
  description:
    "question tool, rejected: the tool fails as interrupted and the run stops with no step end; the next prompt runs normally",
  async run(context) {
    return followRejected(await questionAskedAndAnswered(context, "question rejected", "reject"));
  },
  check(result) {
    const called = checkRejectedRun(result, "question.v2.asked");
    checkAsk(result.ask, result.sessionID, called);
  },
});
