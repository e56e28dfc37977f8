/**
 * End to end: `ocb serve --store postgres://…` (a real Postgres, a real `opencode serve`, the
 * scripted model through `--demo`) runs a turn, and the transcript is in Postgres: the same
 * durable events the client was sent, numbered 1..n, with the session's record; `ocb sessions`
 * and `ocb show` read the same database. Given with `OCB_STORE` instead, the same. A Postgres
 * that refuses the login stops `ocb serve` at once with exit 2 and a message that names the
 * store without its password.
 */
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres-store.js";
import { killLeftOcb, ocb, type RunningOcb, sidecarUrlOf, startOcb } from "../support/ocb-cli.js";
import { callSidecar, canonicalEventsOf, subscribeOverWs } from "../support/sidecar-http.js";
import { usePostgres } from "../support/use-postgres.js";

const TOKEN = "sidecar-postgres-e2e-token-0123456789";
/** Safety net for a state to be reached (a cold real server on a loaded machine). */
const BOUND_MS = 90_000;
const postgres = usePostgres();
const clis: RunningOcb[] = [];

afterAll(() => {
  for (const cli of clis) {
    killLeftOcb(cli);
  }
});

async function until(what: string, ready: () => boolean, cli: RunningOcb): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!ready()) {
    if (Date.now() > deadline)
      throw new Error(`never reached ${what}:\n${cli.stdout}\n${cli.stderr}`);
    await delay(50);
  }
}

function call(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return callSidecar({ url, token: TOKEN, boundMs: BOUND_MS }, method, path, body);
}

const eventsOf = canonicalEventsOf;

/** Runs one turn through an `ocb serve` started with `args`/`env`; gives what Postgres keeps. */
async function turnThroughServe(storeUrl: string, how: "option" | "env"): Promise<string> {
  const args = ["serve", "--demo", ...(how === "option" ? ["--store", storeUrl] : [])];
  const env = { OCB_TOKEN: TOKEN, ...(how === "env" ? { OCB_STORE: storeUrl } : {}) };
  const cli = startOcb(args, { env });
  clis.push(cli);
  const url = await sidecarUrlOf(cli, BOUND_MS);
  const session = (await call(url, "POST", "/v1/sessions", { title: "on postgres" })) as {
    id: string;
  };
  const client = await subscribeOverWs({ url, token: TOKEN }, session.id, 0);
  await call(url, "POST", `/v1/sessions/${session.id}/inputs`, {
    text: "[[reply kept in postgres]]",
    delivery: "queue",
  });
  await until("the turn's end", () => eventsOf(client).some((e) => e.type === "turn.ended"), cli);
  client.close();
  process.kill(cli.pid, "SIGTERM");
  expect(await cli.exited).toBe(0);

  const sent = eventsOf(client).filter((event) => event.seq !== undefined);
  const store = await PostgresStore.open(storeUrl);
  try {
    const kept = await store.read(session.id);
    expect(kept.map((event) => event.seq)).toEqual(kept.map((_, index) => index + 1));
    expect(kept.map((event) => [event.seq, event.type, event.id])).toEqual(
      sent.map((event) => [event.seq, event.type, event.id]),
    );
    expect(kept.find((event) => event.type === "turn.ended")?.data).toMatchObject({
      outcome: "completed",
      text: "kept in postgres",
    });
    expect(await store.session(session.id)).toMatchObject({ title: "on postgres" });
  } finally {
    await store.close();
  }
  return session.id;
}

describe("ocb serve on a Postgres store", () => {
  it("--store postgres://…: a real turn's transcript is kept in Postgres", async () => {
    const url = await postgres.freshDatabase();
    const sessionId = await turnThroughServe(url, "option");
    // The store commands read the same database, and name it without its password.
    const listed = await ocb(["sessions", "--json", "--store", url]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(sessionId);
    const missing = await ocb(["show", "ses_missing", "--store", url]);
    expect(missing.code).toBe(2);
    const password = new URL(url).password;
    expect(missing.stderr).toMatch(
      /no session "ses_missing" in postgres:\/\/postgres@127\.0\.0\.1/,
    );
    expect(missing.stderr + listed.stdout + listed.stderr).not.toContain(password);
  });

  it("OCB_STORE=postgres://…: the same", async () => {
    await turnThroughServe(await postgres.freshDatabase(), "env");
  });

  it("a refused login stops it at once: exit 2, the store named without its password", async () => {
    const url = new URL(await postgres.freshDatabase());
    url.password = "wrong-password-e2e-51d2";
    const run = await ocb(["serve", "--demo", "--store", url.href], { OCB_TOKEN: TOKEN });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /cannot open the transcript store postgres:\/\/postgres@127\.0\.0\.1:\d+\/ocb_test_\w+: .*password authentication failed/,
    );
    expect(run.stderr + run.stdout).not.toContain("wrong-password-e2e-51d2");
  });
});
