/**
 * The landing page's example prompts. On the demo model (`npm start`: the scripted model, not
 * an LLM) they are its directives, so a first try shows what the chat does: a reply, a tool
 * call OpenCode runs, a streamed reply, reasoning. On a real model, ordinary first questions.
 */
import type { ModelCatalog } from "opencode-bridge/client";

export interface ExamplePrompt {
  /** What the button says. */
  label: string;
  /** What it puts in the composer. */
  prompt: string;
}

/** The provider of `ocb serve --demo`'s scripted model. */
const DEMO_PROVIDER = "demo";

export const DEMO_EXAMPLES: readonly ExamplePrompt[] = [
  {
    label: "Say hello",
    prompt: "[[reply Hello! I am the demo model: a script, and your prompt says what I answer.]]",
  },
  {
    label: "Run a shell command",
    prompt:
      '[[tool bash {"command":"pwd && ls -la"}]] [[then OpenCode ran that command in the project directory.]]',
  },
  {
    label: "Stream a long reply",
    prompt: "[[slow 30 60]]",
  },
  {
    label: "Think, then answer",
    prompt:
      "[[reasoning First I weigh what was asked.]] [[reply The reasoning is folded above this answer.]]",
  },
];

export const REAL_EXAMPLES: readonly ExamplePrompt[] = [
  {
    label: "Explain this project",
    prompt: "Explain what this project does and how it is laid out.",
  },
  {
    label: "Find the TODOs",
    prompt: "Find the TODO comments in this project and list them by file.",
  },
  {
    label: "Write a test",
    prompt: "Pick an untested function in this project and write a test for it.",
  },
];

/** Whether the catalog is the demo's (its default model is the scripted one). */
export function isDemo(catalog: ModelCatalog | undefined): boolean {
  return catalog?.default?.providerID === DEMO_PROVIDER;
}

export function examplesFor(catalog: ModelCatalog | undefined): readonly ExamplePrompt[] {
  return isDemo(catalog) ? DEMO_EXAMPLES : REAL_EXAMPLES;
}
