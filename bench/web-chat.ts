/**
 * (h) The web chat in a real Chromium (the tests' @sparticuz/chromium under playwright-core),
 * served by a sidecar over the bridge:
 *   - first render: a session of ≥ N durable events (turns of chained scripted tool calls,
 *     each ending in Markdown with code) opened by navigating to it; the time from the start
 *     of the navigation to the frame where its last turn (its answer and its outcome) is drawn
 *     (`performance.now()` in the page, checked every animation frame); a new context each run, so nothing cached,
 *     then once more after a reload (assets cached); and when the transcript had arrived;
 *   - streaming: a turn of D text deltas sent with no delay between them, the page open on it;
 *     the longest main-thread task the page's PerformanceObserver saw ('longtask' reports only
 *     tasks over 50 ms) and the longest gap between two animation frames.
 *   - review: a turn that changed R files (one shell call writes them, in a git worktree, where
 *     OpenCode keeps the snapshots the per-turn diffs come from); the time from a click on its
 *     "Changes" link to the frame where the panel lists all R files, on a page done with its
 *     start-up reads: the first open (the changes fetched) and again after closing it (the
 *     changes read before shown at once, read again behind them).
 * Goals (issues 14 and 32): first render ≤ 500 ms, longest task ≤ 50 ms, review of 200 files
 * ≤ 300 ms. Figures, never assertions.
 */
import { rmSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { BridgeClient } from "../src/client/index.js";
import type { Bridge } from "../src/runtime/bridge/bridge.js";
import { startSidecar } from "../src/sidecar/sidecar.js";
import { launchBrowser } from "../test/support/chromium.js";
import { gitWorktree } from "../test/support/git-worktree.js";
import { assertWebBuilt } from "../test/support/web-build.js";
import { NodeWebSocket } from "../test/support/ws.js";
import { note, withTimeout } from "./stats.js";

export interface WebChatBenchOptions {
  /** Durable events the rendered session has at least. */
  events: number;
  /** Tool calls chained in each of its turns. */
  toolsPerTurn: number;
  /** Navigations timed (each in a new context). */
  renders: number;
  /** Files the reviewed turn changes, and how often its review is opened. */
  reviewFiles: number;
  reviewOpens: number;
  /** Text deltas of the streamed turn. */
  deltas: number;
  timeoutMs: number;
}

export interface WebChatBenchResult {
  /** Durable events of the rendered session, and its turns. */
  sessionEvents: number;
  turns: number;
  /** Navigation start → last turn's outcome drawn, ms, one per navigation (nothing cached). */
  firstRenderMs: number[];
  /** The same after a reload (the hashed assets cached). */
  warmRenderMs: number[];
  /** Navigation start → the session's snapshot asked for, and its last byte, ms (cold navigations). */
  transcriptAskedMs: number[];
  transcriptMs: number[];
  /** Deltas the streamed turn had (as a client of the sidecar counted them). */
  deltas: number;
  /** 'longtask' entries while it streamed, and the longest (0 when none over 50 ms). */
  longTasks: number;
  longestTaskMs: number;
  /** Longest gap between two animation frames while it streamed. */
  longestFrameGapMs: number;
  /** Files the reviewed turn changed, as its `files.changed` counted them. */
  reviewFiles: number;
  /** Click on "Changes" → every file listed, ms: the first open, then each open after a close. */
  reviewFirstMs: number;
  reviewAgainMs: number[];
}

const TOKEN = "bench-web-chat-token-0123456789abcdef";

/** Watches the main thread from the page's start: long tasks and frame gaps (reset by `reset`). */
const WATCH_MAIN_THREAD = `(() => {
  const w = window;
  w.__bench = { longTasks: 0, longestTask: 0, longestGap: 0, last: 0 };
  w.__benchReset = () => Object.assign(w.__bench, { longTasks: 0, longestTask: 0, longestGap: 0, last: 0 });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      w.__bench.longTasks += 1;
      w.__bench.longestTask = Math.max(w.__bench.longestTask, entry.duration);
    }
  }).observe({ type: "longtask", buffered: true });
  const frame = (now) => {
    if (w.__bench.last > 0) w.__bench.longestGap = Math.max(w.__bench.longestGap, now - w.__bench.last);
    w.__bench.last = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})()`;

/**
 * Run in the page (a function: the chat's CSP forbids the eval a string predicate needs): the
 * time since navigation once `count` turn outcomes are drawn, else false.
 */
function outcomesAtLeast(count: number): number | false {
  const page = globalThis as unknown as {
    document: { querySelectorAll(selector: string): { length: number } };
  };
  const drawn = page.document.querySelectorAll('[data-testid="turn-outcome"]').length;
  return drawn >= count && performance.now();
}

/**
 * Run in the page: the time since navigation once the long session's last turn is drawn (its
 * answer's heading, "Turn N", and its outcome), else false. The chat draws a long session's
 * latest turns first and earlier ones when the reader scrolls up: the last turn is what a
 * reader who opens the session sees.
 */
function lastTurnDrawn(turn: number): number | false {
  const page = globalThis as unknown as {
    document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> };
  };
  const headings = page.document.querySelectorAll('[data-testid="conversation"] h2');
  const last = headings[headings.length - 1];
  if (last?.textContent !== `Turn ${turn}`) return false;
  const outcomes = page.document.querySelectorAll('[data-testid="turn-outcome"]').length;
  return outcomes > 0 && performance.now();
}

/** A turn of `tools` chained shell calls, then a Markdown answer with code. */
function longTurn(turn: number, tools: number): string {
  const calls = Array.from(
    { length: tools },
    (_, index) => `[[tool bash {"command":"echo turn ${turn} step ${index + 1}"}]]`,
  );
  const answer = [
    `## Turn ${turn}`,
    "",
    "Done: **every** step ran. The code:",
    "",
    "```ts",
    `export const turn${turn} = (steps: number): string => \`ran \${steps} steps\`;`,
    "```",
  ].join("\n");
  return `${calls.join(" ")} [[then ${answer}]]`;
}

export async function benchWebChat(
  bridge: Bridge,
  options: WebChatBenchOptions,
): Promise<WebChatBenchResult> {
  assertWebBuilt();
  // OpenCode keeps the snapshots a turn's diffs come from only in a git worktree.
  const repository = gitWorktree("ocb-bench-review-");
  const sidecar = await startSidecar({ bridge, token: TOKEN, allowDirectories: [repository] });
  const client = new BridgeClient({ url: sidecar.url, token: TOKEN, WebSocket: NodeWebSocket });
  const browser = await launchBrowser();
  try {
    const long = await client.createSession({ title: "bench: a long session" });
    const session = await bridge.openSession(long.id);
    let sessionEvents = 0;
    let turns = 0;
    while (sessionEvents < options.events) {
      turns += 1;
      const turn = await session.send(longTurn(turns, options.toolsPerTurn), {
        delivery: "queue",
      });
      await withTimeout(turn.done(), options.timeoutMs * 4, `long turn ${turns}`);
      sessionEvents = (await client.transcript(long.id)).length;
      note(`web chat: the long session has ${sessionEvents} events after ${turns} turns`);
    }

    const renders = await timeRenders(browser.browser, sidecar.url, long.id, turns, options);
    const streamed = await streamDeltas(browser.browser, sidecar.url, client, options);
    const review = await timeReview(browser.browser, sidecar.url, client, repository, options);
    return { sessionEvents, turns, ...renders, ...streamed, ...review };
  } finally {
    client.close();
    await browser.close();
    await sidecar.close();
    rmSync(repository, { recursive: true, force: true });
  }
}

/**
 * Opens the session `renders` times, each in a new context (nothing cached: the page, its
 * assets, the transcript all fetched), then reloads it once (the hashed assets cached).
 */
async function timeRenders(
  browser: Browser,
  url: string,
  sessionId: string,
  turns: number,
  options: WebChatBenchOptions,
): Promise<
  Pick<WebChatBenchResult, "firstRenderMs" | "warmRenderMs" | "transcriptAskedMs" | "transcriptMs">
> {
  const times = {
    firstRenderMs: [] as number[],
    warmRenderMs: [] as number[],
    transcriptAskedMs: [] as number[],
    transcriptMs: [] as number[],
  };
  const drawn = async (page: Page): Promise<number> => {
    const at = await page.waitForFunction(lastTurnDrawn, turns, {
      polling: "raf",
      timeout: options.timeoutMs,
    });
    return Number(await at.jsonValue());
  };
  for (let run = 0; run < options.renders; run++) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${url}/#token=${TOKEN}&session=${sessionId}`);
      times.firstRenderMs.push(await drawn(page));
      const [asked, fetched] = await page.evaluate<[number, number]>(SNAPSHOT_FETCHED);
      times.transcriptAskedMs.push(asked);
      times.transcriptMs.push(fetched);
      await page.reload();
      times.warmRenderMs.push(await drawn(page));
    } finally {
      await context.close();
    }
  }
  return times;
}

/** When the page asked for the session's snapshot and had its last byte (ms since navigation). */
const SNAPSHOT_FETCHED = `(() => {
  const entry = performance.getEntriesByType("resource").find((e) => new URL(e.name).pathname.endsWith("/live"));
  return entry === undefined ? [-1, -1] : [entry.startTime, entry.responseEnd];
})()`;

async function streamDeltas(
  browser: Browser,
  url: string,
  client: BridgeClient,
  options: WebChatBenchOptions,
): Promise<
  Pick<WebChatBenchResult, "deltas" | "longTasks" | "longestTaskMs" | "longestFrameGapMs">
> {
  const info = await client.createSession({ title: "bench: 10k deltas" });
  const context = await browser.newContext();
  try {
    const page: Page = await context.newPage();
    await page.addInitScript(WATCH_MAIN_THREAD);
    await page.goto(`${url}/#token=${TOKEN}&session=${info.id}`);
    await page.getByTestId("composer-input").waitFor({ timeout: options.timeoutMs });
    const watch = client.subscribe(info.id);
    let deltas = 0;
    const counting = (async () => {
      for await (const event of watch) {
        if (event.type === "text.delta") deltas += 1;
        if (event.type === "turn.ended") return;
      }
    })();
    await page.evaluate("window.__benchReset()");
    await client.send(info.id, { text: `[[slow ${options.deltas} 0]]`, delivery: "queue" });
    await page.waitForFunction(outcomesAtLeast, 1, { timeout: options.timeoutMs * 4 });
    await withTimeout(counting, options.timeoutMs, "the streamed turn's end (client)");
    const seen = await page.evaluate<{
      longTasks: number;
      longestTask: number;
      longestGap: number;
    }>("window.__bench");
    return {
      deltas,
      longTasks: seen.longTasks,
      longestTaskMs: seen.longestTask,
      longestFrameGapMs: seen.longestGap,
    };
  } finally {
    await context.close();
  }
}

/**
 * Run in the page (as text: tsx would wrap the inner function in a helper the page lacks):
 * clicks the last turn's "Changes" link and resolves with the time until a frame where the
 * panel lists `files` files (checked every animation frame).
 */
const openReview = (files: number): string => `new Promise((resolve) => {
  const links = document.querySelectorAll('[data-testid="turn-changes"]');
  const start = performance.now();
  links[links.length - 1]?.click();
  const check = () => {
    const listed = document.querySelectorAll(
      '[data-testid="review-panel"] [data-testid="changed-file"]',
    ).length;
    if (listed >= ${files}) resolve(performance.now() - start);
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})`;

/** A turn that writes `reviewFiles` files, then its review opened `reviewOpens` times. */
async function timeReview(
  browser: Browser,
  url: string,
  client: BridgeClient,
  repository: string,
  options: WebChatBenchOptions,
): Promise<Pick<WebChatBenchResult, "reviewFiles" | "reviewFirstMs" | "reviewAgainMs">> {
  const info = await client.createSession({ title: "bench: review", directory: repository });
  const write = `mkdir -p many && for i in $(seq 1 ${options.reviewFiles}); do seq 1 20 | sed "s/^/line $i /" > many/file$i.ts; done`;
  await client.send(info.id, {
    text: `[[tool bash ${JSON.stringify({ command: write })}]] [[then written]]`,
    delivery: "queue",
  });
  const watch = client.subscribe(info.id, { after: 0 });
  let reviewFiles = 0;
  await withTimeout(
    (async () => {
      for await (const event of watch) {
        if (event.type !== "files.changed") continue;
        reviewFiles = event.data.files.length + (event.data.moreFiles ?? 0);
        return;
      }
    })(),
    options.timeoutMs * 4,
    "the review turn's files.changed",
  );
  watch.close();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/#token=${TOKEN}&session=${info.id}`);
    await page.getByTestId("turn-changes").waitFor({ timeout: options.timeoutMs });
    // The page's start-up reads done (models, commands, agents, context, MCP: OpenCode answers
    // them one by one), so that the figure is the review's, not a race with the page's load.
    await page.waitForLoadState("networkidle", { timeout: options.timeoutMs });
    const listed = Math.min(reviewFiles, 200);
    const reviewFirstMs = await page.evaluate<number>(openReview(listed));
    const reviewAgainMs: number[] = [];
    for (let open = 1; open < options.reviewOpens; open++) {
      await page.getByTestId("review-close").click();
      await page.getByTestId("review-panel").waitFor({ state: "detached" });
      reviewAgainMs.push(await page.evaluate<number>(openReview(listed)));
    }
    return { reviewFiles, reviewFirstMs, reviewAgainMs };
  } finally {
    await context.close();
  }
}
