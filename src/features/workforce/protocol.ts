/**
 * The service's side of the runner protocol (DESIGN 3.3): the run request it posts, built from
 * the run, its employee, the employee's memory and the moment. The shapes are the shared
 * contract's.
 */
import { RECENT_REJECTIONS_KEY, type RunRequestBody } from "../../platform/contract/mod.ts";
import { RUN_MAX_TURNS, runBudgetUsd } from "./rules.ts";

/** What the run's prompt says of the moment, and what the budget is computed from. */
export interface RunMoment {
  now: Date;
  /** When the employee's latest succeeded run finished. */
  lastSucceededAt: Date | null;
  /** The employee's spend this month, in USD. */
  monthSpendUsd: number;
  /** The delivery repository (`GITHUB_REPO`), if one is configured. */
  deliveryRepo?: string;
}

/**
 * The repository a run with the `repo` tool works in: the delivery repository at its default
 * branch (`HEAD`, which the runner pins to a commit when the run starts).
 */
export function runRepository(
  tools: readonly string[],
  deliveryRepo: string | undefined,
): { repo: string; ref: string } | null {
  return tools.includes("repo") && deliveryRepo ? { repo: deliveryRepo, ref: "HEAD" } : null;
}

/**
 * DESIGN 3.3: the body posted to `RUNNER_URL/runs`. `memory.recent_rejections` is always present
 * (an empty list without rejections). The budget is the smaller of the per-run cap and what is
 * left of the employee's monthly cap.
 */
export function buildRunRequest(
  run: { publicId: string; trigger: "schedule" | "manual"; scheduledFor: Date | null },
  employee: {
    publicId: string;
    name: string;
    role: string;
    taskPrompt: string;
    modelPreference: string;
    postFilterSkill: string | null;
    skills: string[];
    tools: string[];
    allowedKinds: string[];
    monthlyBudgetCents: number;
  },
  memories: { key: string; value: unknown }[],
  moment: RunMoment,
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
      tools: employee.tools,
      allowed_kinds: employee.allowedKinds as RunRequestBody["employee"]["allowed_kinds"],
    },
    context: {
      now: moment.now.toISOString(),
      trigger: run.trigger,
      scheduled_for: run.scheduledFor?.toISOString() ?? null,
      last_succeeded_at: moment.lastSucceededAt?.toISOString() ?? null,
    },
    repository: runRepository(employee.tools, moment.deliveryRepo),
    memory,
    budget_usd: runBudgetUsd(employee.monthlyBudgetCents, moment.monthSpendUsd),
    max_turns: RUN_MAX_TURNS,
  };
}
