/**
 * A question the agent asks: each question's options as toggle buttons (one choice, or several
 * when it allows several), an optional answer of one's own, submit or decline.
 */
import type { QuestionPart } from "opencode-bridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { useSessionActions } from "../session-actions.js";
import { type Question, questionsOf } from "./question-shape.js";

export function QuestionAsk(props: { part: QuestionPart }) {
  const { part } = props;
  const actions = useSessionActions();
  const questions = questionsOf(part.questions);
  const [chosen, setChosen] = useState<string[][]>(() => questions.map(() => []));
  const [own, setOwn] = useState<string[]>(() => questions.map(() => ""));
  const [busy, setBusy] = useState(false);
  // The turn waits for this: the focus comes to it (its first option), not left in the composer.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLButtonElement>(".question-option")?.focus(), []);
  const act = async (call: () => Promise<void>) => {
    setBusy(true);
    try {
      await call();
    } finally {
      setBusy(false);
    }
  };
  const answers = () =>
    questions.map((_, index) => {
      const typed = own[index]?.trim() ?? "";
      return [...(chosen[index] ?? []), ...(typed === "" ? [] : [typed])];
    });
  return (
    <form
      ref={form}
      class="ask ask-question"
      data-testid="ask-question"
      data-request-id={part.requestId}
      aria-label="Question from the agent"
      onSubmit={(event) => {
        event.preventDefault();
        void act(() => actions.answerQuestion(part.requestId, answers()));
      }}
    >
      {questions.map((question, index) => (
        <QuestionFields
          key={index}
          question={question}
          chosen={chosen[index] ?? []}
          own={own[index] ?? ""}
          onChosen={(labels) => setChosen(chosen.map((old, at) => (at === index ? labels : old)))}
          onOwn={(text) => setOwn(own.map((old, at) => (at === index ? text : old)))}
        />
      ))}
      <div class="ask-actions">
        <button type="submit" class="primary" data-testid="question-submit" disabled={busy}>
          Answer
        </button>
        <button
          type="button"
          class="danger"
          data-testid="question-reject"
          disabled={busy}
          onClick={() => void act(() => actions.rejectQuestion(part.requestId))}
        >
          Decline
        </button>
      </div>
    </form>
  );
}

function QuestionFields(props: {
  question: Question;
  chosen: string[];
  own: string;
  onChosen: (labels: string[]) => void;
  onOwn: (text: string) => void;
}) {
  const { question } = props;
  return (
    <fieldset class="question">
      <legend>
        {question.header === undefined ? null : <strong>{question.header}: </strong>}
        {question.question}
      </legend>
      {question.options.map((option) => {
        const on = props.chosen.includes(option.label);
        return (
          <button
            key={option.label}
            type="button"
            class="question-option"
            data-testid="question-option"
            aria-pressed={on}
            onClick={() => {
              if (!question.multiple) props.onChosen(on ? [] : [option.label]);
              else if (on) props.onChosen(props.chosen.filter((label) => label !== option.label));
              else props.onChosen([...props.chosen, option.label]);
            }}
          >
            <span class="option-mark" aria-hidden="true">
              {on ? "●" : "○"}
            </span>{" "}
            {option.label}
            {option.description === undefined ? null : (
              <span class="muted"> — {option.description}</span>
            )}
          </button>
        );
      })}
      <input
        class="question-own"
        aria-label="Your own answer (optional)"
        placeholder="Or type your own answer"
        value={props.own}
        onInput={(event) => props.onOwn(event.currentTarget.value)}
      />
    </fieldset>
  );
}

/** A question no longer waiting: its answers, or that it was declined. */
export function QuestionRecord(props: { part: QuestionPart }) {
  const { part } = props;
  const questions = questionsOf(part.questions);
  const asked = questions.map((question) => question.question).join(" / ");
  const answered = (part.answers ?? []).map((answer) =>
    Array.isArray(answer) ? answer.join(", ") : String(answer),
  );
  const outcome =
    part.state === "replied"
      ? `answered: ${answered.join(" / ")}`
      : part.state === "rejected"
        ? "declined"
        : "not answered";
  return (
    <p class="ask-record muted" data-testid="question-record">
      Question "{asked}": {outcome}
    </p>
  );
}
