/**
 * (x) Each control call through the sidecar against the same call straight to OpenCode, in the
 * same run: one real sidecar over a real `Bridge` (bench/control-rig.ts) and the same OpenCode
 * server called with plain `fetch`, the calls alternating so that the machine's noise falls on
 * both; the median of each and their ratio (goal ≤ 1.1x each). Where the sidecar does more than
 * one OpenCode call by design, the direct side makes the calls it makes, and the line says so;
 * where it does other work (checks a name, walks the messages, writes an event to the store,
 * answers from its own file system), the line says that too: the ratio is what a client pays.
 */

import { loadavg } from "node:os";
import { CALL_BOUND_MS, type ControlRig, startControlRig } from "./control-rig.js";
import { recordGoal } from "./goals.js";
import { formatMs, formatRatio, median, note } from "./stats.js";

/** A control call both ways: each side's request(s), read to the end, failing on an error. */
interface CallPair {
  name: string;
  /** What the direct side calls on OpenCode. */
  direct: string;
  /** What the sidecar does beyond relaying, said in the printed line (empty: nothing). */
  extra: string;
  viaSidecar(): Promise<void>;
  straight(): Promise<void>;
}

export interface ControlCallResult {
  name: string;
  direct: string;
  extra: string;
  /** Medians, ms. */
  sidecarMs: number;
  directMs: number;
}

export interface ControlCallsResult {
  calls: number;
  results: ControlCallResult[];
  /** Medians of the cheapest call each way (`GET /healthz`, `GET /global/health`): the floor. */
  floor: { sidecarMs: number; directMs: number };
  /** The 1-minute load average at the end (the machine is shared). */
  load: number;
}

const WARMUPS = 3;

async function request(
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: unknown },
): Promise<void> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers:
      init.body === undefined
        ? init.headers
        : { ...init.headers, "content-type": "application/json" },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(CALL_BOUND_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${text}`);
}

/** The id of the message just before `inputId` (OpenCode reverts *to* a message it keeps). */
async function messageBefore(rig: ControlRig, upstreamId: string, inputId: string) {
  const url = `${rig.opencodeUrl}/api/session/${upstreamId}/message?limit=50&order=desc`;
  const response = await fetch(url, {
    headers: rig.raw.headers(),
    signal: AbortSignal.timeout(CALL_BOUND_MS),
  });
  const { data } = (await response.json()) as { data: { id: string }[] };
  const at = data.findIndex((message) => message.id === inputId);
  const before = data[at + 1]?.id;
  if (at < 0 || before === undefined) throw new Error(`no message before ${inputId}`);
  return before;
}

async function callPairs(rig: ControlRig): Promise<CallPair[]> {
  // Two sessions of two turns each: one undone and redone through the sidecar, one straight.
  const viaSidecar = await rig.createSession("bench (x) through the sidecar");
  const straight = await rig.createSession("bench (x) straight");
  await rig.turn(viaSidecar.id, "hello");
  const undoneInput = await rig.turn(viaSidecar.id, "hello again");
  await rig.turn(straight.id, "hello");
  const straightInput = await rig.turn(straight.id, "hello again");
  const revertPoint = await messageBefore(rig, straight.upstreamId, straightInput);

  const sidecar = (path: string, method = "GET", body?: unknown) =>
    request(`${rig.sidecar.url}${path}`, {
      method,
      headers: rig.sidecarHeaders,
      ...(body === undefined ? {} : { body }),
    });
  const opencode = (path: string, method = "GET", body?: unknown) =>
    request(`${rig.opencodeUrl}${path}`, {
      method,
      headers: rig.raw.headers(),
      ...(body === undefined ? {} : { body }),
    });
  const session = `/v1/sessions/${viaSidecar.id}`;
  const upstream = straight.upstreamId;
  const location = `location%5Bdirectory%5D=${encodeURIComponent(rig.directory)}`;
  const messagesPage = `/api/session/${upstream}/message?limit=50&order=desc`;
  const changes = await fetch(`${rig.sidecar.url}${session}/changes`, {
    headers: rig.sidecarHeaders,
  }).then((response) => response.json() as Promise<{ files: unknown[] }>);

  return [
    {
      name: "agents list",
      direct: "GET /api/agent",
      extra: "keeps the primary agents that are not hidden",
      viaSidecar: () => sidecar("/v1/agents"),
      straight: () => opencode(`/api/agent?${location}`),
    },
    {
      name: "commands list",
      direct: "GET /command",
      extra: "",
      viaSidecar: () => sidecar("/v1/commands"),
      straight: () => opencode("/command"),
    },
    {
      name: "MCP status",
      direct: "GET /mcp",
      extra: "",
      viaSidecar: () => sidecar("/v1/mcp"),
      straight: () => opencode("/mcp"),
    },
    {
      name: "skills",
      direct: "GET /skill",
      extra: "",
      viaSidecar: () => sidecar("/v1/skills"),
      straight: () => opencode("/skill"),
    },
    {
      name: "todos",
      direct: "GET /session/{id}/todo",
      extra: "opens the session's runtime (already open here)",
      viaSidecar: () => sidecar(`${session}/todos`),
      straight: () => opencode(`/session/${upstream}/todo`),
    },
    {
      name: "VCS status",
      direct: "GET /vcs and /vcs/status, in parallel",
      extra: "",
      viaSidecar: () => sidecar(`${session}/vcs`),
      straight: async () => {
        await Promise.all([opencode("/vcs"), opencode("/vcs/status")]);
      },
    },
    {
      name: "changes",
      direct:
        changes.files.length === 0
          ? "GET /api/session/{id}/message (one page; no step changed a file)"
          : "GET /api/session/{id}/message (one page), then /vcs/diff?mode=git",
      extra: "walks the messages for the steps' files, cuts the diffs",
      viaSidecar: () => sidecar(`${session}/changes`),
      straight: async () => {
        await opencode(messagesPage);
        if (changes.files.length > 0) await opencode("/vcs/diff?mode=git");
      },
    },
    {
      name: "file list",
      direct: "GET /file?path=.",
      extra: "answers from its own file system (no OpenCode call)",
      viaSidecar: () => sidecar(`${session}/files`),
      straight: () => opencode("/file?path=."),
    },
    {
      name: "file read",
      direct: "GET /file/content?path=README.md",
      extra: "answers from its own file system (no OpenCode call)",
      viaSidecar: () => sidecar(`${session}/files/content?path=README.md`),
      straight: () => opencode("/file/content?path=README.md"),
    },
    {
      name: "file find",
      direct: "GET /find/file?query=rea",
      extra: "walks its own file system (no OpenCode call)",
      viaSidecar: () => sidecar(`${session}/files/find?q=rea`),
      straight: () => opencode("/find/file?query=rea"),
    },
    {
      name: "undo + redo",
      direct: "POST /api/session/{id}/revert/stage, then /revert/clear (message id known)",
      extra:
        "finds the message before the input (a page of messages), writes session.reverted and session.unreverted to the store",
      viaSidecar: async () => {
        await sidecar(`${session}/revert`, "POST", { inputId: undoneInput });
        await sidecar(`${session}/unrevert`, "POST");
      },
      straight: async () => {
        await opencode(`/api/session/${upstream}/revert/stage`, "POST", {
          messageID: revertPoint,
          files: true,
        });
        await opencode(`/api/session/${upstream}/revert/clear`, "POST");
      },
    },
    {
      name: "switch agent",
      direct: "POST /api/session/{id}/agent",
      extra: "checks the name against GET /api/agent first (OpenCode takes any name)",
      viaSidecar: () => sidecar(`${session}/agent`, "POST", { agent: "build" }),
      straight: () => opencode(`/api/session/${upstream}/agent`, "POST", { agent: "build" }),
    },
  ];
}

async function timed(call: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** Both sides' medians of `pair`, the calls alternating (and which goes first, too). */
async function measure(
  pair: Pick<CallPair, "viaSidecar" | "straight">,
  calls: number,
): Promise<{ sidecarMs: number; directMs: number }> {
  for (let warm = 0; warm < WARMUPS; warm++) {
    await pair.viaSidecar();
    await pair.straight();
  }
  const sidecarMs: number[] = [];
  const directMs: number[] = [];
  for (let call = 0; call < calls; call++) {
    // Which side goes first alternates too: neither always pays for a cold cache.
    if (call % 2 === 0) {
      sidecarMs.push(await timed(pair.viaSidecar));
      directMs.push(await timed(pair.straight));
    } else {
      directMs.push(await timed(pair.straight));
      sidecarMs.push(await timed(pair.viaSidecar));
    }
  }
  return { sidecarMs: median(sidecarMs), directMs: median(directMs) };
}

export async function benchControlCalls(options: { calls: number }): Promise<ControlCallsResult> {
  const rig = await startControlRig();
  try {
    const pairs = await callPairs(rig);
    const results: ControlCallResult[] = [];
    for (const pair of pairs) {
      note(`(x) ${pair.name}: ${options.calls} calls each way, alternating`);
      const medians = await measure(pair, options.calls);
      results.push({ name: pair.name, direct: pair.direct, extra: pair.extra, ...medians });
    }
    const floor = await measure(
      {
        viaSidecar: () => request(`${rig.sidecar.url}/healthz`, { headers: {} }),
        straight: () => request(`${rig.opencodeUrl}/global/health`, { headers: rig.raw.headers() }),
      },
      options.calls,
    );
    return { calls: options.calls, results, floor, load: loadavg()[0] ?? Number.NaN };
  } finally {
    await rig.close();
  }
}

export function controlCallsLines(result: ControlCallsResult): string[] {
  const lines = [
    `(x) control calls through the sidecar against straight to OpenCode, medians of ${result.calls} each, alternating:`,
  ];
  for (const call of result.results) {
    const ratio = call.sidecarMs / call.directMs;
    const met = recordGoal({
      figure: "(x)",
      what: `${call.name} through the sidecar against ${call.direct}`,
      measured: formatRatio(ratio),
      goal: "≤ 1.1x",
      met: ratio <= 1.1,
    });
    lines.push(
      `    ${call.name.padEnd(13)} ${formatMs(call.sidecarMs).padStart(8)} against ${formatMs(call.directMs).padStart(8)} (${call.direct}): ${formatRatio(ratio)} (goal ≤ 1.1x: ${met})` +
        (call.extra === "" ? "" : `; the sidecar ${call.extra}`),
    );
  }
  lines.push(
    `    for scale, the cheapest call each way (GET /healthz, GET /global/health): ${formatMs(result.floor.sidecarMs)} and ${formatMs(result.floor.directMs)}; 1-minute load average ${result.load.toFixed(1)} (a shared machine: OpenCode's own times swing by milliseconds)`,
  );
  return lines;
}
