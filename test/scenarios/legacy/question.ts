/**
 * A `question` tool call: the question arrives on `/event` (`question.asked`; unlike a
 * permission ask, before the tool part is running, in the recordings), the scenario answers it
 * (or rejects it), and the tool completes with the answer (or fails and ends the turn).
 */
import { expect } from "vitest";
import { ANSWERED_OUTPUT, ANSWERS, QUESTION_PROMPT, QUESTIONS } from "../question-tool.js";
import { scenario } from "../scenario.js";
import { checkAnsweredAsk, promptAskAndAnswer } from "./events.js";

function questionScenario(name: string, answer: "reply" | "reject") {
  return scenario({
    name,
    surface: "legacy",
    description:
      answer === "reply"
        ? "a question tool call asks on /event; the client answers [[a]] and the tool completes with it"
        : "a question tool call asks on /event; the client rejects it, the tool fails and the turn ends",
    async run(context) {
      const { answered, events, messages } = await promptAskAndAnswer(
        context,
        { title: `question ${answer}` },
        QUESTION_PROMPT,
        "question.asked",
        async (client, asked) => {
          const requestID = asked.properties.id;
          return {
            pending: await client.question.list(),
            answered:
              answer === "reply"
                ? await client.question.reply({ requestID, answers: ANSWERS })
                : await client.question.reject({ requestID }),
          };
        },
      );
      return { ...answered, events, messages };
    },
    check(result) {
      const { asked, last } = checkAnsweredAsk(
        result,
        "question",
        answer === "reply"
          ? { type: "question.asked", answer: "question.replied", properties: { answers: ANSWERS } }
          : { type: "question.asked", answer: "question.rejected", properties: {} },
        answer === "reply" ? { text: "answered" } : "rejected",
      );
      expect(asked?.properties.questions).toEqual(QUESTIONS);
      expect(result.pending).toEqual([asked?.properties]);
      expect(last?.state.input).toEqual({ questions: QUESTIONS });
      if (answer === "reply") {
        expect(last?.state).toMatchObject({
          status: "completed",
          title: "Asked 1 question",
          output: ANSWERED_OUTPUT,
          metadata: { answers: ANSWERS },
        });
      } else {
        // A rejection fails the tool and ends the turn: no error, no further model call.
        expect(last?.state).toMatchObject({
          status: "error",
          error: "The user dismissed this question",
        });
      }
    },
  });
}

export const legacyQuestionAnswered = questionScenario("legacy-question-answered", "reply");
export const legacyQuestionRejected = questionScenario("legacy-question-rejected", "reject");
