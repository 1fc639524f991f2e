/** SQL for the activation funnel: the first time each user reached each later step. */
import type { Queryable } from "../../platform/db.ts";
import type { RecordedStep } from "./rules.ts";

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
 * Counts of the recorded steps reached in previous = (start, middle] and current = (middle, end]:
 * one statement, whatever the number of users.
 */
export async function recordedStepCounts(
  sql: Queryable,
  w: { start: Date; middle: Date; end: Date },
): Promise<{ step: RecordedStep; previous: number; current: number }[]> {
  return await sql<{ step: RecordedStep; previous: number; current: number }[]>`
    select step,
      count(*) filter (where reached_at <= ${w.middle})::int as previous,
      count(*) filter (where reached_at > ${w.middle})::int as current
    from activation_steps
    where reached_at > ${w.start} and reached_at <= ${w.end}
    group by step`;
}
