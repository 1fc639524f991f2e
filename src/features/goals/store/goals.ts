/** SQL of goals' rows: insert, read, list (keyset pages), update, complete. */
import { maybeOne, one, type Queryable } from "../../../platform/db.ts";
import { publicId } from "../../../platform/ids.ts";
import type { GoalPatch, GoalShape, GoalStatus, NewGoalRow, Visibility } from "../rules.ts";
import { type KeyColumn, keyset, type PageWindow } from "../../../graphql/pagination.ts";

export interface GoalRow extends GoalShape {
  id: string;
  publicId: string;
  userId: string;
  parentId: string | null;
  title: string;
  description: string | null;
  visibility: Visibility;
  completedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const columns = (sql: Queryable) =>
  sql`id, public_id as "publicId", user_id as "userId", parent_id as "parentId", title,
      description, kind, unit, start_value as "startValue", target_value as "targetValue",
      due_date::text as "dueDate", cadence, times_per_week as "timesPerWeek", status, visibility,
      completed_at as "completedAt", created_at as "createdAt", updated_at as "updatedAt"`;

export async function insertGoal(
  tx: Queryable,
  userId: string,
  row: NewGoalRow,
  at: Date,
): Promise<GoalRow> {
  return await one(tx<GoalRow[]>`
    insert into goals (public_id, user_id, parent_id, title, description, kind, unit, start_value,
                       target_value, due_date, cadence, times_per_week, visibility, created_at,
                       updated_at)
    values (${publicId()}, ${userId}, ${row.parentId}, ${row.title}, ${row.description},
            ${row.kind}, ${row.unit}, ${row.startValue}, ${row.targetValue}, ${row.dueDate},
            ${row.cadence}, ${row.timesPerWeek}, ${row.visibility}, ${at}, ${at})
    returning ${columns(tx)}`);
}

export async function goalsByIds(sql: Queryable, ids: readonly string[]): Promise<GoalRow[]> {
  return await sql<GoalRow[]>`select ${columns(sql)} from goals where id = any(${ids as string[]})`;
}

/** The user's goal with this public id, or null (another user's goal is null too). */
export async function ownGoal(sql: Queryable, userId: string, goalPublicId: string) {
  return await maybeOne(sql<GoalRow[]>`
    select ${columns(sql)} from goals where public_id = ${goalPublicId} and user_id = ${userId}`);
}

/** A public, not archived goal, or null. */
export async function publicGoal(sql: Queryable, goalPublicId: string): Promise<GoalRow | null> {
  return await maybeOne(sql<GoalRow[]>`
    select ${columns(sql)} from goals
    where public_id = ${goalPublicId} and visibility = 'public' and status <> 'archived'`);
}

/** The cursor key of a row: its creation time to the microsecond (a Date drops them). */
export const keyText = (sql: Queryable, column: string) =>
  sql`to_char(${sql.unsafe(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The keyset of `goals`: newest first by (created_at, public_id). */
const GOAL_KEY: KeyColumn[] = [{ column: "created_at", cast: "timestamptz" }, {
  column: "public_id",
}];

const topLevelWhere = (sql: Queryable, userId: string, status: GoalStatus | null) =>
  sql`user_id = ${userId} and parent_id is null
      and ${status ? sql`status = ${status}` : sql`status <> 'archived'`}`;

/** A goal of the top-level list: its cursor key and the version of its activity. */
export type ListedGoalRow = GoalRow & { createdKey: string; activityVersion: string };

const listedColumns = (sql: Queryable) =>
  sql`${columns(sql)}, ${keyText(sql, "created_at")} as "createdKey",
      activity_version::text as "activityVersion"`;

/**
 * A window of a user's top-level goals, newest first; archived ones only when asked for by
 * status. Each with its activity version (what the goals' activity cache is keyed by).
 */
export async function topLevelGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
  window: PageWindow<readonly (string | number)[]>,
): Promise<ListedGoalRow[]> {
  const k = keyset(sql, GOAL_KEY, "desc", window);
  return await sql<ListedGoalRow[]>`
    select ${listedColumns(sql)} from goals
    where ${topLevelWhere(sql, userId, status)} and ${k.where}
    order by ${k.orderBy} limit ${k.limit}`;
}

/**
 * `topLevelGoals` and, in the same statement, the sub-goals of the goals of the window (oldest
 * first, as `subGoalsOf`): one round trip for a list that shows them.
 */
export async function topLevelGoalsWithSubGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
  window: PageWindow<readonly (string | number)[]>,
): Promise<{ goals: ListedGoalRow[]; subGoals: GoalRow[] }> {
  const k = keyset(sql, GOAL_KEY, "desc", window);
  const rows = await sql<(ListedGoalRow & { subGoal: boolean })[]>`
    with page as materialized (
      select * from goals
      where ${topLevelWhere(sql, userId, status)} and ${k.where}
      order by ${k.orderBy} limit ${k.limit}
    )
    select * from (
      select ${listedColumns(sql)}, false as "subGoal",
        row_number() over (order by ${k.orderBy}) as n
      from page
      union all
      select ${columns(sql)}, null, null, true, row_number() over (order by created_at, id)
      from goals where parent_id in (select id from page)
    ) listed order by "subGoal", n`;
  const firstSubGoal = rows.findIndex((r) => r.subGoal);
  return firstSubGoal === -1
    ? { goals: rows, subGoals: [] }
    : { goals: rows.slice(0, firstSubGoal), subGoals: rows.slice(firstSubGoal) };
}

/** How many top-level goals `topLevelGoals` pages through. */
export async function countTopLevelGoals(
  sql: Queryable,
  userId: string,
  status: GoalStatus | null,
): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from goals where ${topLevelWhere(sql, userId, status)}`;
  return row.n;
}

/** Sub-goals of several parents, oldest first. */
export async function subGoalsOf(sql: Queryable, parentIds: readonly string[]) {
  return await sql<GoalRow[]>`
    select ${columns(sql)} from goals where parent_id = any(${parentIds as string[]})
    order by created_at, id`;
}

/**
 * Applies a patch in one statement. A status change carries its guard (`status = any(from)`), so
 * a concurrent change makes it match nothing: null is returned and nothing changes.
 */
export async function updateGoal(
  sql: Queryable,
  goalId: string,
  patch: GoalPatch,
  allowedFrom: GoalStatus[] | null,
  at: Date,
): Promise<GoalRow | null> {
  const has = (key: keyof GoalPatch) => patch[key] !== undefined;
  return await maybeOne(sql<GoalRow[]>`
    update goals set
      title = coalesce(${patch.title ?? null}, title),
      description = case when ${has("description")} then ${patch.description ?? null}
                    else description end,
      unit = case when ${has("unit")} then ${patch.unit ?? null} else unit end,
      start_value = coalesce(${patch.startValue ?? null}::double precision, start_value),
      target_value = coalesce(${patch.targetValue ?? null}::double precision, target_value),
      due_date = case when ${has("dueDate")} then ${patch.dueDate ?? null}::date else due_date end,
      times_per_week = coalesce(${patch.timesPerWeek ?? null}::integer, times_per_week),
      visibility = coalesce(${patch.visibility ?? null}, visibility),
      status = coalesce(${patch.status ?? null}, status),
      completed_at = case
        when ${patch.status ?? null}::text is null or ${patch.status ?? null} = status
          then completed_at
        when ${patch.status ?? null} = 'completed' then ${at}::timestamptz
        else null end,
      updated_at = ${at}
    where id = ${goalId}
      ${allowedFrom ? sql`and status = any(${allowedFrom})` : sql``}
    returning ${columns(sql)}`);
}

/** Marks a target completed when it is still active (the guard of the transition). */
export async function completeGoal(tx: Queryable, goalId: string, at: Date) {
  return await maybeOne(tx<GoalRow[]>`
    update goals set status = 'completed', completed_at = ${at}, updated_at = ${at}
    where id = ${goalId} and status = 'active'
    returning ${columns(tx)}`);
}
