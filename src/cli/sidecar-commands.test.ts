/**
 * The sidecar commands as `ocb` runs them (in-process), against a small HTTP peer that answers
 * as the sidecar does: how they find it (the connection file, --url with OCB_TOKEN), what they
 * print, and how a refusal, a missing or stale sidecar ends (one `ocb:` line, exit code). The
 * real sidecar and OpenCode: test/e2e/cli-session-controls.test.ts.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ocbInProcess } from "../../test/support/ocb-in-process.js";
import { serveConnectionPath, writeServeConnection } from "./serve-connection-file.js";

const TOKEN = "peer-token-0123456789abcdef";
const CHANGES = {
  files: [
    { path: "a.txt", status: "added", additions: 1, deletions: 0, patch: "@@ -0,0 +1 @@\n+one\n" },
  ],
};

let peer: Server;
let url: string;
let data: string;
/** Environment of a run: a data directory of its own, nothing pointing at a sidecar. */
let env: Record<string, string>;
const requests: string[] = [];

beforeAll(async () => {
  peer = createServer((request, response) => {
    requests.push(`${request.method} ${request.url} ${request.headers.authorization}`);
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      return answer(401, { error: { code: "unauthorized", message: "a valid token is required" } });
    }
    if (request.url === "/v1/sessions/ses_1/changes") return answer(200, CHANGES);
    if (request.url === "/v1/sessions/ses_html/changes") {
      response.writeHead(502, { "content-type": "text/html" });
      return response.end("<html>\n<body>Bad gateway</body>\n</html>\n");
    }
    if (request.url === "/v1/sessions/ses_1/unrevert") {
      return answer(409, { error: { code: "conflict", message: "nothing to redo \u001b[2J" } });
    }
    answer(404, { error: { code: "not_found", message: "no such session" } });
  });
  await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
  data = mkdtempSync(join(tmpdir(), "ocb-sidecar-commands-"));
  env = { XDG_DATA_HOME: data, OCB_URL: "", OCB_TOKEN: "" };
});

afterAll(async () => {
  await new Promise((resolve) => peer.close(resolve));
  rmSync(data, { recursive: true, force: true });
});

function announce(fields: { url: string; pid: number }): void {
  writeServeConnection(serveConnectionPath(env), { ...fields, token: TOKEN, startedAt: 0 });
}

describe("the sidecar commands", () => {
  it("with no flags and no ocb serve running, say how to reach one", async () => {
    rmSync(serveConnectionPath(env), { force: true });
    const run = await ocbInProcess(["changes", "ses_1"], env);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toBe(
      `ocb: no running \`ocb serve\` found (no ${serveConnectionPath(env)}): start \`ocb serve\`, or pass --url (or set OCB_URL) with the sidecar's token in OCB_TOKEN\n`,
    );
  });

  it("find the running ocb serve through its connection file and send its token", async () => {
    announce({ url, pid: process.pid });
    const run = await ocbInProcess(["changes", "ses_1", "--stat"], env);
    expect(run).toEqual({ code: 0, stdout: "added    +1 -0 a.txt\n", stderr: "" });
    expect(requests.at(-1)).toBe(`GET /v1/sessions/ses_1/changes Bearer ${TOKEN}`);
    const json = await ocbInProcess(["changes", "ses_1", "--json"], env);
    expect(JSON.parse(json.stdout)).toEqual(CHANGES);
  });

  it("report a connection file whose serve is gone, or that does not answer", async () => {
    announce({ url, pid: 2 ** 22 + 1 }); // above Linux's largest pid: no such process
    const stale = await ocbInProcess(["redo", "ses_1"], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^ocb: the `ocb serve` that .* is no longer running: start/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    announce({ url: `http://127.0.0.1:${port}`, pid: process.pid });
    const silent = await ocbInProcess(["redo", "ses_1"], env);
    expect(silent.code).toBe(1);
    expect(silent.stderr).toMatch(
      new RegExp(
        `^ocb: the \`ocb serve\` that .*connection\\.json names \\(pid ${process.pid}\\) does not answer at http://127.0.0.1:${port} \\(no connection\\): start \`ocb serve\``,
      ),
    );
  });

  it("take --url with OCB_TOKEN over the file, and refuse --url without it (exit 2)", async () => {
    announce({ url: "http://127.0.0.1:1", pid: process.pid });
    const run = await ocbInProcess(["changes", "ses_1", "--stat", "--url", url], {
      ...env,
      OCB_TOKEN: TOKEN,
    });
    expect(run).toMatchObject({ code: 0, stdout: "added    +1 -0 a.txt\n" });
    const viaEnv = await ocbInProcess(["changes", "ses_1", "--stat"], {
      ...env,
      OCB_URL: url,
      OCB_TOKEN: TOKEN,
    });
    expect(viaEnv).toMatchObject({ code: 0, stdout: "added    +1 -0 a.txt\n" });
    const tokenless = await ocbInProcess(["changes", "ses_1", "--url", url], env);
    expect(tokenless).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "ocb: --url needs the sidecar's token in OCB_TOKEN (never on the command line, where `ps` shows it)\n",
    });
  });

  it("end a refusal of the API in one `ocb:` line, exit 1, its text unable to drive the terminal", async () => {
    announce({ url, pid: process.pid });
    const unknown = await ocbInProcess(["undo", "ses_nope", "msg_1"], env);
    expect(unknown).toEqual({
      code: 1,
      stdout: "",
      stderr: "ocb: no such session (not_found, 404)\n",
    });
    const conflict = await ocbInProcess(["redo", "ses_1"], env);
    expect(conflict.stderr).toBe("ocb: nothing to redo  (conflict, 409)\n");
    const wrongToken = await ocbInProcess(["compact", "ses_1", "--url", url], {
      ...env,
      OCB_TOKEN: "not-the-token-0123456789",
    });
    expect(wrongToken.stderr).toBe("ocb: a valid token is required (unauthorized, 401)\n");
    // Not the sidecar's own answer (a proxy's page): still one line.
    const html = await ocbInProcess(["changes", "ses_html"], env);
    expect(html).toMatchObject({ code: 1, stdout: "" });
    expect(html.stderr).toBe("ocb: <html> <body>Bad gateway</body> </html> (http_502, 502)\n");
  });
});
