/** SQL for the activation funnel: the first time each user reached each later step. */
import type { Queryable } from "../../platform/db.ts";
import { countUserMilestones } from "../users/store.ts";
import type { StepCounts } from "./rules.ts";

/** Steps other features report; sign-in and the onboarding wizard come from the user record. */
export const RECORDED_STEPS = ["first_goal", "first_check_in", "first_badge"] as const;
export type RecordedStep = typeof RECORDED_STEPS[number];

/**
 * Records that `userId` reached `step` at `at` (default now). Keeps the earliest time, so it is
 * safe to call on every goal, check-in or badge, in any order. Call it inside the transaction
 * that creates the goal, check-in or badge.
 */
export async function recordActivationStep(
  sql: Queryable,
  userId: string,
  step: RecordedStep,
  at?: Date,
): Promise<void> {
  await sql`
    insert into activation_steps (user_id, step, reached_at)
    values (${userId}, ${step}, coalesce(${at ?? null}::timestamptz, now()))
    on conflict (user_id, step) do update
      set reached_at = least(activation_steps.reached_at, excluded.reached_at)`;
}

/**
 * Counts per step for previous = (start, middle] and current = (middle, end]: two statements,
 * whatever the number of users.
 */
export async function funnelCounts(
  sql: Queryable,
  w: { start: Date; middle: Date; end: Date },
): Promise<{ previous: Partial<StepCounts>; current: Partial<StepCounts> }> {
  const users = await countUserMilestones(sql, w.start, w.middle, w.end);
  const rows = await sql<{ step: RecordedStep; previous: number; current: number }[]>`
    select step,
      count(*) filter (where reached_at <= ${w.middle})::int as previous,
      count(*) filter (where reached_at > ${w.middle})::int as current
    from activation_steps
    where reached_at > ${w.start} and reached_at <= ${w.end}
    group by step`;
  const previous: Partial<StepCounts> = {
    signed_in: users.previous.signedIn,
    wizard_completed: users.previous.wizardCompleted,
  };
  const current: Partial<StepCounts> = {
    signed_in: users.current.signedIn,
    wizard_completed: users.current.wizardCompleted,
  };
  for (const step of RECORDED_STEPS) {
    const row = rows.find((r) => r.step === step);
    previous[step] = row?.previous ?? 0;
    current[step] = row?.current ?? 0;
  }
  return { previous, current };
}
