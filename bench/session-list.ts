/**
 * (w) The session list with many kept sessions: `GET /v1/sessions` pages (`limit=50`) through
 * a real sidecar whose store keeps N sessions (each with a short turn's events), the whole list
 * walked page by page newest first, then one project's first pages (`directory=`); the
 * latency of each page, p50 and p99 (goal p99 ≤ 100 ms). The unpaginated list, what a client
 * asking for every session pays, is printed beside it for scale.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonical } from "../src/events/build.js";
import type { CanonicalEvent } from "../src/events/canonical.js";
import { Bridge } from "../src/runtime/bridge/bridge.js";
import { startSidecar } from "../src/sidecar/sidecar.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { demoModelServer } from "../src/testing/demo-model-server.js";
import { recordGoal } from "./goals.js";
import { formatMs, percentile } from "./stats.js";

const TOKEN = "bench-session-list-token-0123456789";
const PAGE = 50;

export interface SessionListResult {
  sessions: number;
  pages: number;
  /** ms of each page request, walking the whole list. */
  pageMs: number[];
  /** ms of each first page of one project's sessions. */
  projectPageMs: number[];
  /** ms of the one unpaginated list. */
  wholeListMs: number;
}

/** A short turn's durable events, as a kept session has them. */
function keptEvents(sessionId: string, at: number): CanonicalEvent[] {
  const origin = (n: number) => ({
    sessionId,
    turnId: `turn_${sessionId}`,
    at: at + n,
    native: { backend: "serve" as const, type: "bench", seq: n, id: `evt_${sessionId}_${n}` },
  });
  return [
    canonical(origin(0), 0, "input.admitted", {
      inputId: "msg_1",
      text: "hello",
      delivery: "queue",
    }),
    canonical(origin(1), 0, "turn.started", { inputId: "msg_1" }),
    canonical(origin(2), 0, "turn.ended", { outcome: "completed", text: "hi" }),
  ];
}

async function fill(store: SqliteStore, directories: string[], count: number): Promise<void> {
  const start = Date.now() - count * 1000;
  for (let index = 0; index < count; index++) {
    const id = `ses_bench_${String(index).padStart(6, "0")}`;
    const createdAt = start + index * 1000;
    await store.saveSession({
      id,
      backend: "serve",
      upstreamId: id,
      directory: directories[index % directories.length] ?? "",
      title: `bench session ${index}`,
      state: "released",
      createdAt,
      updatedAt: createdAt,
    });
    await store.append(id, keptEvents(id, createdAt));
  }
}

async function timedGet(url: string): Promise<{ ms: number; body: { nextCursor?: string } }> {
  const started = performance.now();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await response.json()) as { nextCursor?: string };
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${JSON.stringify(body)}`);
  return { ms, body };
}

export async function benchSessionList(options: { sessions: number }): Promise<SessionListResult> {
  const root = mkdtempSync(join(tmpdir(), "ocb-bench-session-list-"));
  const directory = join(root, "main");
  const other = join(root, "other");
  mkdirSync(directory);
  mkdirSync(other);
  const store = SqliteStore.open(join(root, "store.db"));
  let bridge: Bridge | undefined;
  let sidecar: Awaited<ReturnType<typeof startSidecar>> | undefined;
  try {
    await fill(store, [directory, directory, directory, other], options.sessions);
    bridge = await Bridge.start({ directory, store, modelServer: demoModelServer });
    sidecar = await startSidecar({
      bridge,
      token: TOKEN,
      store,
      web: false,
      allowDirectories: [other],
    });
    const base = `${sidecar.url}/v1/sessions`;
    await timedGet(`${base}?limit=${PAGE}`); // warm-up
    const pageMs: number[] = [];
    let cursor: string | undefined;
    do {
      const after = cursor === undefined ? "" : `&cursor=${cursor}`;
      const { ms, body } = await timedGet(`${base}?limit=${PAGE}&order=newest${after}`);
      pageMs.push(ms);
      cursor = body.nextCursor;
    } while (cursor !== undefined);
    const projectPageMs: number[] = [];
    for (let run = 0; run < 50; run++) {
      const project = encodeURIComponent(run % 2 === 0 ? directory : other);
      projectPageMs.push((await timedGet(`${base}?directory=${project}&limit=${PAGE}`)).ms);
    }
    const wholeListMs = (await timedGet(base)).ms;
    return { sessions: options.sessions, pages: pageMs.length, pageMs, projectPageMs, wholeListMs };
  } finally {
    await sidecar?.close();
    await bridge?.close();
    store.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export function sessionListLines(result: SessionListResult): string[] {
  const p99 = percentile(result.pageMs, 99);
  const projectP99 = percentile(result.projectPageMs, 99);
  const met = recordGoal({
    figure: "(w)",
    what: `a page of ${PAGE} of ${result.sessions} kept sessions (GET /v1/sessions?limit=${PAGE}), p99`,
    measured: formatMs(Math.max(p99, projectP99)),
    goal: "≤ 100 ms",
    met: Math.max(p99, projectP99) <= 100,
  });
  return [
    `(w) the session list with ${result.sessions} kept sessions, pages of ${PAGE} through the sidecar:`,
    `    the whole list walked newest first (${result.pages} pages): p50 ${formatMs(percentile(result.pageMs, 50))}, p99 ${formatMs(p99)}`,
    `    one project's first page (directory=), 50 times: p50 ${formatMs(percentile(result.projectPageMs, 50))}, p99 ${formatMs(projectP99)} (goal p99 ≤ 100 ms: ${met})`,
    `    for scale, the unpaginated list of all ${result.sessions}: ${formatMs(result.wholeListMs)}`,
  ];
}
