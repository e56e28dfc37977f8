/** Projects: the directories sessions are made in, so that a client can group and filter them. */
import { type Project, ProjectListSchema } from "../../wire/http.js";
import type { SidecarContext } from "../context.js";
import type { SidecarApp } from "../sidecar-app.js";
import { ERROR_RESPONSES } from "./meta.js";

export function registerProjectRoutes(app: SidecarApp, ctx: SidecarContext): void {
  app.get(
    "/v1/projects",
    {
      schema: {
        summary:
          "The projects: the allowed directories (--dir, --allow-dir) and every directory a kept session is in, with their session counts (GET /v1/sessions?directory= lists one's sessions)",
        response: { 200: ProjectListSchema, ...ERROR_RESPONSES },
      },
    },
    async () => ({ projects: await projects(ctx) }),
  );
}

async function projects(ctx: SidecarContext): Promise<Project[]> {
  const found = new Map<string, { sessions: number; lastCreatedAt?: number }>();
  for (const root of ctx.allowedDirectories.roots) found.set(root, { sessions: 0 });
  for (const session of await ctx.bridge.sessions()) {
    const project = found.get(session.directory) ?? { sessions: 0 };
    project.sessions += 1;
    project.lastCreatedAt = Math.max(project.lastCreatedAt ?? 0, session.createdAt);
    found.set(session.directory, project);
  }
  return await Promise.all(
    [...found].map(async ([directory, { sessions, lastCreatedAt }]) => ({
      directory,
      default: directory === ctx.bridge.directory,
      allowed: await ctx.allowedDirectories.allows(directory),
      sessions,
      ...(lastCreatedAt === undefined ? {} : { lastCreatedAt }),
    })),
  );
}
