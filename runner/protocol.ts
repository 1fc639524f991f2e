/**
 * The runner's wire contracts: the run request the service posts (DESIGN 3.3), the artifact the
 * model must produce, and the result webhook body (DESIGN 3.4).
 */
import { z } from "zod";

/** Skill names are directory names under SKILLS_DIR: no separators, no dots at the start. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const skillName = z.string().regex(SKILL_NAME, "must be a skill directory name");

/** DESIGN 3.3: `POST {RUNNER_URL}/runs`. */
export const RunRequestSchema = z.object({
  run_id: z.string().min(1).max(64),
  employee: z.object({
    id: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    role: z.string().max(200),
    task_prompt: z.string().min(1).max(50_000),
    model: z.string().min(1).max(200),
    post_filter_skill: skillName.nullable().optional(),
    skills: z.array(skillName).max(20).default([]),
  }),
  memory: z.object({ recent_rejections: z.array(z.string().max(5_000)).max(50).optional() })
    .catchall(z.unknown()).default({}),
  budget_usd: z.number().positive().max(1000),
  max_turns: z.number().int().min(1).max(200),
});
export type RunRequest = z.output<typeof RunRequestSchema>;

/** Spec 2.4 artifact kinds. */
export const ARTIFACT_KINDS = [
  "code_patch",
  "email_template",
  "slack_message",
  "report",
  "draft_post",
  "recommendation",
  "other",
] as const;

/** The final answer of a run. */
export const ArtifactSchema = z.object({
  kind: z.enum(ARTIFACT_KINDS),
  title: z.string().trim().min(1).max(300),
  payload: z.string().min(1).max(200_000),
});
export type Artifact = z.output<typeof ArtifactSchema>;

/** The post-filter's verdict on an artifact. */
export const VerdictSchema = z.object({
  passed: z.boolean(),
  reason: z.string().max(2_000).nullable().default(null),
});
export type Verdict = z.output<typeof VerdictSchema>;

export type ErrorSubtype =
  | "error_max_turns"
  | "error_max_budget_usd"
  | "error_during_execution"
  | "cancelled";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  num_turns: number;
}

export interface RunLogEntry {
  at: string;
  type: string;
  [field: string]: unknown;
}

/** DESIGN 3.4: `POST /webhooks/ai-workforce`. */
export interface RunResult {
  run_id: string;
  status: "succeeded" | "failed";
  artifact: Artifact | null;
  post_filter: Verdict | null;
  memory: Record<string, unknown>;
  usage: Usage;
  error: { subtype: ErrorSubtype; message: string } | null;
  run_log: RunLogEntry[];
}

/** In-memory run status (spec 3.1, 4.8). */
export type RunStatus = "running" | "cancelled" | "succeeded" | "failed";

/** Zod issues as one line: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
  ).join("; ");
}
