/** The `question` tool call both surfaces' question scenarios make, and what it returns. */

/** One question with two options; the scenarios answer `a` (or reject it). */
export const QUESTIONS = [
  {
    question: "Pick one",
    header: "Pick",
    options: [
      { label: "a", description: "A" },
      { label: "b", description: "B" },
    ],
  },
];

/** The prompt: the scripted model calls the tool, then replies "answered". */
export const QUESTION_PROMPT = `[[tool question ${JSON.stringify({ questions: QUESTIONS })}]] [[then answered]]`;

/** The answer the scenarios give: one list of picked labels per question. */
export const ANSWERS = [["a"]];

/** The tool's output once `a` is picked. */
export const ANSWERED_OUTPUT =
  'User has answered your questions: "Pick one"="a". You can now continue with the user\'s answers in mind.';
