/**
 * What the soak's child reports on stdout, one JSON line each, and what it is started with
 * (in the environment: the secrets stay off the command line). zod parses both ends.
 */
import { z } from "zod";

/** The child's settings, in `SOAK_SETTINGS`. */
export const SoakSettingsSchema = z.object({
  modelUrl: z.string().min(1),
  sessions: z.number().int().positive(),
  durationMs: z.number().int().positive(),
  sampleEveryMs: z.number().int().positive(),
  workDir: z.string().min(1),
  /** The provider API key the scripted model's config carries (a secret for the scan). */
  apiKey: z.string().min(8),
  /** The managed server's password (a secret for the scan). */
  password: z.string().min(8),
});
export type SoakSettings = z.infer<typeof SoakSettingsSchema>;

export const SOAK_SETTINGS_ENV = "SOAK_SETTINGS";

const ResourcesSchema = z.object({
  fds: z.number().int(),
  active: z.record(z.string(), z.number().int()),
});

const SampleSchema = z.object({
  kind: z.literal("sample"),
  atMs: z.number(),
  rssBytes: z.number(),
  heapBytes: z.number(),
  codeBytes: z.number(),
  heapTotalBytes: z.number(),
  anonBytes: z.number(),
  fds: z.number().int(),
  turns: z.number().int(),
});

const EndSchema = z.object({
  kind: z.literal("end"),
  /** Before the bridge started (the fds and handles of a bare child). */
  before: ResourcesSchema,
  /** While the sessions ran (after the first turns), for the reader's scale. */
  running: ResourcesSchema,
  /** After `bridge.close()`, once they settled (or the settling bound passed). */
  afterClose: ResourcesSchema,
  turns: z.object({
    started: z.number().int(),
    endedOnce: z.number().int(),
    outcomes: z.record(z.string(), z.number().int()),
  }),
  /** From the store after close: seq gaps, and event ids stored twice. */
  durableLost: z.number().int(),
  duplicated: z.number().int(),
  durableEvents: z.number().int(),
  peakRssBytes: z.number(),
  /** Errors the session loops met (a send that threw), the first few. */
  errors: z.array(z.string()),
});

export const SoakReportSchema = z.discriminatedUnion("kind", [SampleSchema, EndSchema]);
export type SoakReport = z.infer<typeof SoakReportSchema>;
export type SoakSample = z.infer<typeof SampleSchema>;
export type SoakEnd = z.infer<typeof EndSchema>;
export type Resources = z.infer<typeof ResourcesSchema>;
