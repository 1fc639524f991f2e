/**
 * The service's side of the runner protocol (DESIGN 3.3 and 3.4): the run request it posts and
 * the result webhook body it accepts. The shapes are fixed by DESIGN; the runner has its own copy
 * (`runner/protocol.ts`) because neither program imports the other.
 */
import { z } from "zod";
import {
  ARTIFACT_KINDS,
  MAX_PAYLOAD,
  RECENT_REJECTIONS_KEY,
  RUN_BUDGET_USD,
  RUN_MAX_TURNS,
} from "./rules.ts";

const count = z.number().int().min(0).max(1_000_000_000);

/** DESIGN 3.4: `POST /webhooks/ai-workforce`. */
export const RunResultSchema = z.object({
  run_id: z.string().min(1).max(64),
  status: z.enum(["succeeded", "failed"]),
  artifact: z.object({
    kind: z.enum(ARTIFACT_KINDS),
    title: z.string().trim().min(1).max(300),
    payload: z.string().max(MAX_PAYLOAD),
  }).nullable().default(null),
  post_filter: z.object({
    passed: z.boolean(),
    reason: z.string().max(2_000).nullable().default(null),
  }).nullable().default(null),
  memory: z.record(z.string().min(1).max(200), z.unknown()).default({}),
  usage: z.object({
    input_tokens: count,
    output_tokens: count,
    cost_usd: z.number().min(0).max(100_000),
    num_turns: count,
  }),
  error: z.object({
    subtype: z.string().min(1).max(100),
    message: z.string().max(10_000),
  }).nullable().default(null),
  run_log: z.array(z.record(z.string(), z.unknown())).max(10_000).default([]),
}).refine((r) => r.status !== "succeeded" || r.artifact !== null, {
  message: "a succeeded result must carry an artifact",
  path: ["artifact"],
});
export type RunResultBody = z.output<typeof RunResultSchema>;

/** Zod issues as one line: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message
  ).join("; ");
}

export interface RunRequestBody {
  run_id: string;
  employee: {
    id: string;
    name: string;
    role: string;
    task_prompt: string;
    model: string;
    post_filter_skill: string | null;
    skills: string[];
  };
  memory: Record<string, unknown>;
  budget_usd: number;
  max_turns: number;
}

/**
 * DESIGN 3.3: the body posted to `RUNNER_URL/runs`. `memory.recent_rejections` is always present
 * (an empty list without rejections). The per-run budget is the smaller of 1 USD and the
 * employee's monthly cap.
 */
export function buildRunRequest(
  run: { publicId: string },
  employee: {
    publicId: string;
    name: string;
    role: string;
    taskPrompt: string;
    modelPreference: string;
    postFilterSkill: string | null;
    skills: string[];
    monthlyBudgetCents: number;
  },
  memories: { key: string; value: unknown }[],
): RunRequestBody {
  const memory: Record<string, unknown> = { [RECENT_REJECTIONS_KEY]: [] };
  for (const m of memories) memory[m.key] = m.value;
  return {
    run_id: run.publicId,
    employee: {
      id: employee.publicId,
      name: employee.name,
      role: employee.role,
      task_prompt: employee.taskPrompt,
      model: employee.modelPreference,
      post_filter_skill: employee.postFilterSkill,
      skills: employee.skills,
    },
    memory,
    budget_usd: Math.max(0.01, Math.min(RUN_BUDGET_USD, employee.monthlyBudgetCents / 100)),
    max_turns: RUN_MAX_TURNS,
  };
}
