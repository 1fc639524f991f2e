/**
 * The runner protocol (DESIGN 3.3 and 3.4), one definition for both programs: the run request the
 * service posts to `RUNNER_URL/runs` and the runner validates, and the run result the runner
 * posts to `/webhooks/ai-workforce` and the service validates. The request is signed over its
 * timestamp, method, path and body (`./request-signature.ts`), the result over its body
 * (`../hmac.ts`).
 */
import { z } from "zod";
import { looksLikePublicId } from "../ids.ts";
import { ARTIFACT_KINDS } from "./kinds.ts";

export { ARTIFACT_KINDS, type ArtifactKind } from "./kinds.ts";

/** Longest artifact payload, in characters. */
export const ARTIFACT_PAYLOAD_MAX = 200_000;

/** The memory key that carries an employee's latest rejection reasons to the runner. */
export const RECENT_REJECTIONS_KEY = "recent_rejections";

/**
 * The memory key of the feedback export's cursor (the `next_since` the `new_feedback` tool last
 * read): written by the runner's tool, advanced by the service only when the run succeeds.
 */
export const FEEDBACK_CURSOR_KEY = "new_feedback_since";

/** Memory keys the service owns: the model may read them, never write them (DESIGN 3.3). */
export const SERVICE_MEMORY_KEYS: readonly string[] = [RECENT_REJECTIONS_KEY, FEEDBACK_CURSOR_KEY];

/** Tools that read the service's own data through its signed integration endpoints. */
export const SERVICE_DATA_TOOLS = ["activation_funnel", "new_feedback"] as const;
export type ServiceDataTool = typeof SERVICE_DATA_TOOLS[number];

/**
 * A tool an employee can be given beyond the built-in ones (DESIGN 3.3): a service-data tool,
 * `repo`, an MCP server's tool `mcp__<server>__<tool>`, or every tool of a server `mcp__<server>`.
 */
export const TOOL_NAME =
  /^(activation_funnel|new_feedback|repo|mcp__[A-Za-z0-9_-]{1,64}(__[A-Za-z0-9_-]{1,64})?)$/;

/** How a failed run ended (DESIGN 3.4). */
export const ERROR_SUBTYPES = [
  "error_max_turns",
  "error_max_budget_usd",
  "error_during_execution",
  "cancelled",
] as const;
export type ErrorSubtype = typeof ERROR_SUBTYPES[number];

/** Skill names are directory names under SKILLS_DIR: no separators, no dots at the start. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const skillName = z.string().regex(SKILL_NAME, "must be a skill directory name");
const toolName = z.string().regex(TOOL_NAME, "must be a known tool name");
const isoTime = z.iso.datetime({ offset: true });
const count = z.number().int().min(0).max(1_000_000_000);

/** A run id as the service mints them (a public id): never a path, never anything else. */
export const runId = z.string().refine(looksLikePublicId, {
  message: "must be a public id (22 to 64 of A-Z, a-z, 0-9, '_' and '-')",
});

/** DESIGN 3.3: `POST {RUNNER_URL}/runs`. */
export const RunRequestSchema = z.object({
  run_id: runId,
  employee: z.object({
    id: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    role: z.string().max(200),
    task_prompt: z.string().min(1).max(50_000),
    model: z.string().min(1).max(200),
    post_filter_skill: skillName.nullable().optional(),
    skills: z.array(skillName).max(20).default([]),
    /** Tools beyond the built-in ones; absent: built-in tools only. */
    tools: z.array(toolName).max(50).default([]),
    /** The kinds the employee may produce; absent: every kind. */
    allowed_kinds: z.array(z.enum(ARTIFACT_KINDS)).min(1).default([...ARTIFACT_KINDS]),
  }),
  /** What the prompt tells the model of the moment; absent from older services. */
  context: z.object({
    now: isoTime,
    trigger: z.enum(["schedule", "manual"]),
    scheduled_for: isoTime.nullable(),
    last_succeeded_at: isoTime.nullable(),
  }).nullable().default(null),
  /** The repository a `repo` tool works in; absent or null: none. */
  repository: z.object({
    repo: z.string().regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, "must be owner/name"),
    ref: z.string().min(1).max(250).regex(/^[^\s~^:?*[\\]+$/, "must be a branch, tag or commit"),
  }).nullable().default(null),
  memory: z.object({ recent_rejections: z.array(z.string().max(5_000)).max(50).optional() })
    .catchall(z.unknown()).default({}),
  budget_usd: z.number().positive().max(1000),
  max_turns: z.number().int().min(1).max(200),
});
/** What the service sends. */
export type RunRequestBody = z.input<typeof RunRequestSchema>;
/** What the runner works with (defaults applied). */
export type RunRequest = z.output<typeof RunRequestSchema>;

/** A run's deliverable: the final answer the model must produce, as the result carries it. */
export const ArtifactSchema = z.object({
  kind: z.enum(ARTIFACT_KINDS),
  title: z.string().trim().min(1).max(300),
  payload: z.string().min(1).max(ARTIFACT_PAYLOAD_MAX),
});
export type Artifact = z.output<typeof ArtifactSchema>;

/** What the runner learnt about an artifact while making it (DESIGN 3.4; all optional). */
export const ArtifactMetadataSchema = z.object({
  /** The commit a `code_patch` was made at. */
  base_sha: z.string().regex(/^[0-9a-f]{7,64}$/).optional(),
  /** The files a `code_patch` touches. */
  files: z.array(z.string().min(1).max(1_000)).max(1_000).optional(),
  /** Figures of the payload found in none of the run's sources (the grounding check). */
  unsupported_figures: z.array(z.string().min(1).max(100)).max(500).optional(),
});
export type ArtifactMetadata = z.output<typeof ArtifactMetadataSchema>;

/** An artifact as a run result carries it: the model's answer and the runner's metadata. */
export const ResultArtifactSchema = ArtifactSchema.extend({
  metadata: ArtifactMetadataSchema.optional(),
});
export type ResultArtifact = z.output<typeof ResultArtifactSchema>;

/** The `run_log` entry type of a run a skill's preflight ended before any model call. */
export const SKIPPED_LOG_TYPE = "skipped";

/** The post-filter's verdict on an artifact. */
export const VerdictSchema = z.object({
  passed: z.boolean(),
  reason: z.string().max(2_000).nullable().default(null),
});
export type Verdict = z.output<typeof VerdictSchema>;

export const UsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cost_usd: z.number().min(0).max(100_000),
  num_turns: count,
});
export type Usage = z.output<typeof UsageSchema>;

export interface RunLogEntry {
  at: string;
  type: string;
  [field: string]: unknown;
}

/**
 * DESIGN 3.4: `POST /webhooks/ai-workforce`. An unknown error subtype is accepted (a newer
 * runner may report one); the runner itself only sends {@link ERROR_SUBTYPES}.
 */
export const RunResultSchema = z.object({
  run_id: z.string().min(1).max(64),
  status: z.enum(["succeeded", "failed"]),
  artifact: ResultArtifactSchema.nullable().default(null),
  post_filter: VerdictSchema.nullable().default(null),
  memory: z.record(z.string().min(1).max(200), z.unknown()).default({}),
  usage: UsageSchema,
  error: z.object({
    subtype: z.string().min(1).max(100),
    message: z.string().max(10_000),
  }).nullable().default(null),
  run_log: z.array(z.record(z.string(), z.unknown())).max(10_000).default([]),
}).refine(
  (r) =>
    r.status !== "succeeded" || r.artifact !== null ||
    r.run_log.some((entry) => entry.type === SKIPPED_LOG_TYPE),
  {
    message: "a succeeded result must carry an artifact, unless its run was skipped",
    path: ["artifact"],
  },
);
/** What the service works with (defaults applied). */
export type RunResultBody = z.output<typeof RunResultSchema>;

/** What the runner sends: every field present, a known error subtype. */
export interface RunResult {
  run_id: string;
  status: "succeeded" | "failed";
  artifact: ResultArtifact | null;
  post_filter: Verdict | null;
  memory: Record<string, unknown>;
  usage: Usage;
  error: { subtype: ErrorSubtype; message: string } | null;
  run_log: RunLogEntry[];
}

/** A run as `GET /runs/:id/status` reports it (spec 4.8). */
export type RunnerRunStatus = "running" | "cancelled" | "succeeded" | "failed";

/** Zod issues as one line: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
  ).join("; ");
}
