/**
 * Many projects in one sidecar (in-process backend, `app.inject()`): sessions are made only in
 * the allowed directories (the sidecar's own and `allowDirectories`, with what lies under
 * them), listed by project, filtered and paged.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  AUTH,
  JSON_HEADERS,
  type SidecarHarness,
  sidecarHarness,
} from "../../test/support/sidecar-harness.js";

const elsewhere = mkdtempSync(join(tmpdir(), "ocb-projects-"));
const second = join(elsewhere, "second");
const outside = join(elsewhere, "outside");
mkdirSync(second);
mkdirSync(outside);
const harnesses: SidecarHarness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((harness) => harness.close()));
  rmSync(elsewhere, { recursive: true, force: true });
});

function started(options: Parameters<typeof sidecarHarness>[0] = {}): SidecarHarness {
  const harness = sidecarHarness({ web: false, ...options });
  harnesses.push(harness);
  return harness;
}

async function create(harness: SidecarHarness, directory?: string) {
  return await harness.app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: JSON_HEADERS,
    payload: directory === undefined ? {} : { directory },
  });
}

describe("allowed directories", () => {
  it("a session outside the sidecar's directory is refused (403 forbidden, naming the allowed ones); under it, made", async () => {
    const harness = started();
    const refused = await create(harness, outside);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: "forbidden" });
    expect(refused.json().error.message).toContain(JSON.stringify(harness.directory));
    expect(refused.json().error.message).toContain("--allow-dir");
    const sub = join(harness.directory, "packages");
    mkdirSync(sub);
    expect((await create(harness, sub)).statusCode).toBe(201);
  });

  it("a link under the sidecar's directory that leads outside does not let a session out", async () => {
    const harness = started();
    symlinkSync(outside, join(harness.directory, "way-out"));
    expect((await create(harness, join(harness.directory, "way-out"))).statusCode).toBe(403);
  });

  it("allowDirectories adds directories sessions may be made in", async () => {
    const harness = started({ allowDirectories: [second] });
    const made = await create(harness, second);
    expect(made.statusCode).toBe(201);
    expect(made.json()).toMatchObject({ directory: second });
    expect((await create(harness, outside)).statusCode).toBe(403);
  });
});

describe("projects and pages of sessions", () => {
  it("lists the projects with their session counts, and the sessions of one", async () => {
    const harness = started({ allowDirectories: [second] });
    for (const directory of [undefined, second, undefined]) {
      expect((await create(harness, directory)).statusCode).toBe(201);
    }
    const projects = await harness.app.inject({ url: "/v1/projects", headers: AUTH });
    expect(projects.statusCode).toBe(200);
    const byDirectory = Object.fromEntries(
      projects
        .json()
        .projects.map((project: { directory: string }) => [project.directory, project]),
    );
    expect(byDirectory[harness.directory]).toMatchObject({
      default: true,
      allowed: true,
      sessions: 2,
    });
    expect(byDirectory[second]).toMatchObject({ default: false, allowed: true, sessions: 1 });
    const ofSecond = await harness.app.inject({
      url: `/v1/sessions?directory=${encodeURIComponent(second)}`,
      headers: AUTH,
    });
    expect(ofSecond.json().sessions.map((s: { directory: string }) => s.directory)).toEqual([
      second,
    ]);
  });

  it("pages through the sessions, newest first, each once", async () => {
    const harness = started();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await create(harness)).json().id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = `limit=2&order=newest${cursor === undefined ? "" : `&cursor=${cursor}`}`;
      const page = await harness.app.inject({ url: `/v1/sessions?${query}`, headers: AUTH });
      expect(page.statusCode).toBe(200);
      seen.push(...page.json().sessions.map((s: { id: string }) => s.id));
      cursor = page.json().nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());
  });

  it("a malformed page query is a 400 that says what to pass", async () => {
    const harness = started();
    for (const query of ["limit=0", "limit=lots", "order=random", "cursor=forged"]) {
      const answer = await harness.app.inject({ url: `/v1/sessions?${query}`, headers: AUTH });
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json().error.message, query).not.toBe("");
    }
  });
});
