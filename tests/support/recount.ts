/**
 * Recounts from raw rows what undo, edit and delete must keep right (docs/domain.md, "Undo, edit
 * and delete"): points, leaderboard points, challenge scores, streaks and badges, each compared
 * with what the service keeps or answers.
 */
import assert from "node:assert/strict";
import { badgesFor } from "../../src/features/badges/rules.ts";
import type { TestSetup } from "./setup.ts";

/** The user's activity rows counted: check-ins, progress events and their value sum. */
export async function activityRows(s: TestSetup, userId: string) {
  const [row] = await s.t.deps.db.sql<
    { checkIns: number; events: number; valueSum: number; goals: number }[]
  >`
    select
      (select count(*)::int from habit_check_ins c join goals g on g.id = c.goal_id
       where g.user_id = ${userId}) as "checkIns",
      (select count(*)::int from goal_events where user_id = ${userId}) as events,
      (select coalesce(sum(value), 0)::float8 from goal_events where user_id = ${userId})
        as "valueSum",
      (select count(*)::int from goals where user_id = ${userId}) as goals`;
  return row;
}

/**
 * The ledger's sum is the balance, the all-time leaderboard row counts every check-in and event,
 * and (when nothing was spent) the balance is what the remaining activity earns.
 */
export async function assertPointsRecount(s: TestSetup, userId: string, spent = 0) {
  const sql = s.t.deps.db.sql;
  const rows = await activityRows(s, userId);
  const [points] = await sql<{ balance: number; ledger: number; board: number }[]>`
    select
      coalesce((select balance from user_points where user_id = ${userId}), 0) as balance,
      coalesce((select sum(delta)::int from point_ledger where user_id = ${userId}), 0) as ledger,
      coalesce((select points from activity_points
                where period = 'all' and user_id = ${userId}), 0) as board`;
  assert.equal(points.balance, points.ledger, "balance = the ledger's sum");
  assert.equal(points.board, rows.checkIns + rows.events, "all-time leaderboard points");
  if (!spent) {
    assert.equal(points.balance, 10 * rows.checkIns + 5 * rows.events, "points earned");
  }
  // The week and month rows hold the same total as the all-time row.
  const [periods] = await sql<{ week: number; month: number }[]>`
    select coalesce(sum(points) filter (where period = 'week'), 0)::int as week,
           coalesce(sum(points) filter (where period = 'month'), 0)::int as month
    from activity_points where user_id = ${userId}`;
  assert.deepEqual(periods, { week: points.board, month: points.board });
}

/** A participant's score against its contributions and the activity rows they name. */
export async function assertScoreRecount(
  s: TestSetup,
  userId: string,
  expected: number,
) {
  const [row] = await s.t.deps.db.sql<{ score: number; contributed: number }[]>`
    select p.score, coalesce((select sum(amount) from challenge_contributions
                              where participant_id = p.id), 0)::float8 as contributed
    from challenge_participants p where p.user_id = ${userId}`;
  assert.equal(row.score, row.contributed, "score = its contributions");
  assert.equal(row.score, expected, "score recounted from the remaining activity");
}

/**
 * The badges held are exactly the ones the remaining rows justify (for the facts these tests
 * change: check-ins, progress, day streaks, completed goals, goals).
 */
export async function assertBadgesRecount(s: TestSetup, userId: string, longestDayStreak: number) {
  const sql = s.t.deps.db.sql;
  const [facts] = await sql<
    { goals: boolean; checkIns: boolean; events: boolean; completed: boolean }[]
  >`
    select exists (select 1 from goals where user_id = ${userId}) as goals,
      exists (select 1 from habit_check_ins c join goals g on g.id = c.goal_id
              where g.user_id = ${userId}) as "checkIns",
      exists (select 1 from goal_events where user_id = ${userId}) as events,
      exists (select 1 from goals where user_id = ${userId} and status = 'completed')
        as completed`;
  const expected = new Set<string>([
    ...(facts.goals ? badgesFor({ type: "goal_created" }) : []),
    ...(facts.checkIns
      ? badgesFor({ type: "habit_checked_in", streak: longestDayStreak, period: "day" })
      : []),
    ...(facts.events ? badgesFor({ type: "progress_recorded" }) : []),
    ...(facts.completed ? badgesFor({ type: "goal_completed" }) : []),
  ]);
  const held = await sql<{ code: string }[]>`
    select code from user_badges where user_id = ${userId} and code <> 'first_mood_log'`;
  assert.deepEqual(new Set(held.map((h) => h.code)), expected);
  const items = await sql<{ code: string }[]>`
    select data ->> 'code' as code from feed_items
    where user_id = ${userId} and kind = 'badge_earned'`;
  assert.deepEqual(new Set(items.map((i) => i.code)), new Set(held.map((h) => h.code)));
}

/** A goal's streaks are the same computed afresh: the stored summaries are only a cache. */
export async function assertStreaksRecount(s: TestSetup, as: string, goalId: string) {
  const query = `query G($id: String!) { goal(id: $id) { currentStreak longestStreak } }`;
  const kept = (await s.data(query, { id: goalId }, as)).goal;
  await s.t.deps.db.sql`delete from goal_streak_summaries`;
  assert.deepEqual((await s.data(query, { id: goalId }, as)).goal, kept);
  return kept as { currentStreak: number; longestStreak: number };
}
