/**
 * The first screen, with no session open: a short welcome, where the session will be made
 * (the project switcher), example prompts, and the composer ready with the focus in it. The
 * first message creates the session (titled from its first words) and goes into it; while
 * that takes (seconds: OpenCode makes the session), a status row says so.
 */
import type { BridgeClient, ModelCatalog, Project, SessionInfo } from "opencode-bridge/client";
import { useMemo, useRef, useState } from "preact/hooks";
import { Composer } from "../composer/composer.js";
import { useDraft } from "../composer/draft-store.js";
import { projectName } from "../side/project-order.js";
import { examplesFor, isDemo } from "./example-prompts.js";
import { landingClient } from "./landing-client.js";

/** The landing composer's draft key: what is typed there is kept like a session's draft. */
const LANDING_DRAFT = "landing:new-session";

export interface LandingProps {
  client: BridgeClient;
  catalog: ModelCatalog | undefined;
  /** The projects a session may be made in (`allowed`), the default one first. */
  projects: readonly Project[];
  /** The project chosen (undefined: the default). */
  directory: string | undefined;
  onDirectory: (directory: string) => void;
  /** The first message went into the session made for it. */
  onStarted: (session: SessionInfo) => void;
  onError: (error: unknown) => void;
}

export function Landing(props: LandingProps) {
  const { client, projects } = props;
  const [creating, setCreating] = useState(false);
  const [, changeDraft] = useDraft(LANDING_DRAFT);
  const root = useRef<HTMLDivElement>(null);
  // Read through a ref: the client is made once, the choice may change until the first send.
  const latest = useRef(props);
  latest.current = props;
  const starting = useMemo(
    () =>
      landingClient(client, {
        directory: () => latest.current.directory,
        onCreating: setCreating,
        onSent: (session) => latest.current.onStarted(session),
      }),
    [client],
  );
  const chosen =
    projects.find((project) => project.directory === props.directory) ??
    projects.find((project) => project.default);
  const examples = examplesFor(props.catalog);
  return (
    <div class="landing" data-testid="landing" ref={root}>
      <section class="landing-welcome" aria-labelledby="landing-heading">
        <h2 id="landing-heading">Start a session</h2>
        <p>
          Type below: your first message starts a session, named after its first words. The agent
          works in the project's directory: it reads and edits files and runs commands there.
        </p>
        {isDemo(props.catalog) ? (
          <p class="muted" data-testid="demo-note">
            This is the demo model, a script rather than an LLM: directives such as{" "}
            <code>[[reply …]]</code> in a message say what it answers. Try one:
          </p>
        ) : (
          <p class="muted">Or start from an example:</p>
        )}
        <ul class="examples" aria-label="Example prompts">
          {examples.map((example) => (
            <li key={example.label}>
              <button
                type="button"
                class="example"
                data-testid="example-prompt"
                title={example.prompt}
                onClick={() => {
                  changeDraft((old) => ({ ...old, text: example.prompt }));
                  root.current
                    ?.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]')
                    ?.focus();
                }}
              >
                {example.label}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <div class="landing-where">
        {projects.length > 1 ? (
          <label class="project-picker">
            <span>Project</span>
            <select
              data-testid="project-picker"
              aria-label="Project of the new session"
              value={chosen?.directory ?? ""}
              disabled={creating}
              onChange={(event) => props.onDirectory(event.currentTarget.value)}
            >
              {projects.map((project) => (
                <option key={project.directory} value={project.directory}>
                  {projectName(project.directory)} — {project.directory}
                </option>
              ))}
            </select>
          </label>
        ) : chosen === undefined ? null : (
          <p class="muted landing-project" data-testid="landing-project">
            In <code>{chosen.directory}</code>
          </p>
        )}
        {creating ? (
          <p class="landing-progress" role="status" data-testid="landing-progress">
            <span class="spinner" aria-hidden="true" />
            Starting a session in{" "}
            {chosen === undefined ? "the default project" : projectName(chosen.directory)}…
          </p>
        ) : null}
      </div>
      <Composer
        key={LANDING_DRAFT}
        client={starting}
        sessionId={LANDING_DRAFT}
        live={undefined}
        catalog={props.catalog}
        sessionModel={undefined}
        canRemoveQueued={false}
        onError={props.onError}
        onSent={() => {}}
      />
    </div>
  );
}
