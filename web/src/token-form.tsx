/** Shown when the page has no token: the user pastes the one `ocb serve` printed. */
import { useState } from "preact/hooks";

export function TokenForm(props: {
  problem: string | undefined;
  onToken: (token: string) => void;
}) {
  const [value, setValue] = useState("");
  return (
    <main class="token-page">
      <form
        class="token-form"
        data-testid="token-form"
        onSubmit={(event) => {
          event.preventDefault();
          const token = value.trim();
          if (token !== "") props.onToken(token);
        }}
      >
        <h1>opencode-bridge chat</h1>
        <p>
          Open the link <code>ocb serve</code> printed (it carries the token), or paste the token
          here.
        </p>
        {props.problem === undefined ? null : (
          <p class="problem" role="alert">
            {props.problem} Open the link <code>ocb serve</code> printed last (a new start makes a
            new token), or paste its token.
          </p>
        )}
        <label for="token-input">Access token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autocomplete="off"
          value={value}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
        <button type="submit" data-testid="token-submit">
          Connect
        </button>
      </form>
    </main>
  );
}
