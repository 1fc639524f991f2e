/**
 * The service's side of the runner protocol (DESIGN 3.3): the run request it posts, built from
 * the run, its employee and the employee's memory. The shapes are the shared contract's.
 */
import { RECENT_REJECTIONS_KEY, type RunRequestBody } from "../../platform/contract/mod.ts";
import { RUN_BUDGET_USD, RUN_MAX_TURNS } from "./rules.ts";

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
