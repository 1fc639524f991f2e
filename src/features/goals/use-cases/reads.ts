/**
 * What goals are read through: the GraphQL modules (which batch these per request), the `goals`
 * API of other features and the list of a user's goals. Each read is one statement of the store
 * or a few in parallel; none opens a transaction.
 */
import type { Queryable } from "../../../platform/db.ts";
import { addDays, isoWeekStart, localDate } from "../../../platform/dates.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import {
  type Connection,
  type PageArgs,
  type PageWindow,
  paginate,
} from "../../../graphql/pagination.ts";
import {
  completionPeriods,
  completionRate,
  currentStreak,
  type GoalStatus,
  type GroupBy,
  type Pace,
  pace,
  paceWindowStart,
  progressRange,
  streakPeriod,
  todayIndex,
} from "../rules.ts";
import * as store from "../store.ts";
import type { BucketRow, GoalEventRow, GoalFigures, GoalRow, ListedGoalRow } from "../store.ts";
import { type Actor, type GoalsDeps, ownGoal } from "./shared.ts";

type ReadDeps = Pick<GoalsDeps, "db">;
type Window = PageWindow<readonly (string | number)[]>;

/** A goal's figures and streaks as of its owner's today. */
export interface GoalStats {
  figures: GoalFigures;
  currentStreak: number;
  longestStreak: number;
}

/** Goals by internal id, in no particular order (no access check). */
export const goalsByIds = (deps: ReadDeps, ids: readonly string[]) =>
  store.goalsByIds(deps.db.sql, ids);

/** Sub-goals of several parents, oldest first. */
export const subGoalsOf = (deps: ReadDeps, parentIds: readonly string[]) =>
  store.subGoalsOf(deps.db.sql, parentIds);

/** The same window of the events of several goals, newest first, in each goal's read order. */
export const goalEventsOf = (deps: ReadDeps, goalIds: readonly string[], window: Window) =>
  store.eventsOf(deps.db.sql, goalIds, window);

/** The number of events of each of several goals (missing = 0). */
export const goalEventCounts = (deps: ReadDeps, goalIds: readonly string[]) =>
  store.eventCounts(deps.db.sql, goalIds);

/** The streak freezes each of several users holds (missing = none). */
export const freezeBalances = (deps: ReadDeps, userIds: readonly string[]) =>
  store.freezeBalances(deps.db.sql, userIds);

/** Figures of several goals on `today` in `zone`. */
export const goalFigures = (
  deps: ReadDeps,
  goalIds: readonly string[],
  today: string,
  zone: string,
) => store.goalFigures(deps.db.sql, goalIds, today, isoWeekStart(today), zone);

/** Streak runs of several goals computed from their check-ins in `zone`. */
export const streakRuns = (deps: ReadDeps, goalIds: readonly string[], zone: string) =>
  store.streakRuns(deps.db.sql, goalIds, zone);

/** The actor's progress event of a public id; null for another user's, an unknown or malformed id. */
export async function ownGoalEvent(
  deps: ReadDeps,
  actor: Pick<Actor, "userId">,
  id: string,
): Promise<GoalEventRow | null> {
  return looksLikePublicId(id) ? await store.ownEvent(deps.db.sql, actor.userId, id) : null;
}

/** The actor's habit check-in of a public id; null for another user's, an unknown or malformed id. */
export async function ownCheckIn(deps: ReadDeps, actor: Pick<Actor, "userId">, id: string) {
  return looksLikePublicId(id) ? await store.ownCheckIn(deps.db.sql, actor.userId, id) : null;
}

/** A public goal by its public id; null for a private, unknown or malformed one. */
export async function publicGoal(deps: ReadDeps, id: string): Promise<GoalRow | null> {
  return looksLikePublicId(id) ? await store.publicGoal(deps.db.sql, id) : null;
}

/**
 * A page of the actor's top-level goals (archived ones only when asked for by status), with the
 * sub-goals of the page's goals read in the same statement when `withSubGoals` (else null).
 */
export async function listGoals(
  deps: ReadDeps,
  actor: Pick<Actor, "userId">,
  args: PageArgs & { status?: GoalStatus | null },
  withSubGoals: boolean,
): Promise<{ connection: Connection<ListedGoalRow>; subGoals: GoalRow[] | null }> {
  const sql = deps.db.sql;
  const status = args.status ?? null;
  let subGoals: GoalRow[] | null = null;
  const connection = await paginate(
    args,
    ["timestamp", "publicId"],
    async (window) => {
      if (!withSubGoals) return await store.topLevelGoals(sql, actor.userId, status, window);
      const listed = await store.topLevelGoalsWithSubGoals(sql, actor.userId, status, window);
      subGoals = listed.subGoals;
      return listed.goals;
    },
    (r) => [r.createdKey, r.publicId],
    { totalCount: () => store.countTopLevelGoals(sql, actor.userId, status) },
  );
  return { connection, subGoals };
}

export interface GoalProgressData {
  goal: GoalRow;
  groupBy: GroupBy;
  from: string;
  to: string;
  timeZone: string;
  buckets: BucketRow[];
  pace: Pace | null;
  currentStreak: number;
  longestStreak: number;
  completionRate: number | null;
}

/**
 * The progress data of the actor's goal over a range (`invalid` says why the range is refused;
 * null for a goal not theirs). `today` is the actor's, `stats` reads the goal's figures and
 * streaks (the caller batches them).
 */
export async function goalProgressData(
  deps: Pick<GoalsDeps, "db" | "clock">,
  actor: Actor,
  args: { goalId: string; groupBy: GroupBy; from?: string | null; to?: string | null },
  read: { today: string; stats: (goal: GoalRow) => Promise<GoalStats | null> },
): Promise<GoalProgressData | { invalid: string } | null> {
  const sql = deps.db.sql;
  const goal = await ownGoal(deps, actor, args.goalId);
  if (!goal) return null;
  const zone = actor.timeZone;
  const today = read.today;
  const range = progressRange(args.groupBy, today, args.from, args.to);
  if ("error" in range) return { invalid: range.error };
  const target = goal.kind === "target";
  const since = paceWindowStart(deps.clock.now());
  const habitCompletionRate = async () => {
    const periods = completionPeriods(
      goal,
      localDate(goal.createdAt, zone),
      range.from,
      range.to,
      today,
    );
    if (!periods) return 0;
    const met = await store.qualifyingPeriods(sql, goal, periods.start, periods.end);
    return completionRate(met, periods.possible);
  };
  const [buckets, goalStats, recent, rate] = await Promise.all([
    store.progressBuckets(sql, goal, args.groupBy, range.from, range.to, zone),
    read.stats(goal),
    target ? store.sumSince(sql, goal.id, since) : null,
    target ? null : habitCompletionRate(),
  ]);
  return {
    goal,
    groupBy: args.groupBy,
    from: range.from,
    to: range.to,
    timeZone: zone,
    buckets,
    pace: recent === null ? null : pace(goal, goalStats?.figures.currentValue ?? 0, recent, today),
    currentStreak: goalStats?.currentStreak ?? 0,
    longestStreak: goalStats?.longestStreak ?? 0,
    completionRate: rate,
  };
}

/** What one goal looks like now, in the owner's time zone. */
export interface GoalSnapshot {
  today: string;
  currentValue: number;
  streak: { current: number; longest: number };
  /** One bucket per local day of the last `days` days, today included. */
  days: BucketRow[];
  /** The latest progress events, newest first. */
  recentEvents: GoalEventRow[];
  subGoals: GoalRow[];
}

export async function goalSnapshot(
  deps: ReadDeps,
  goal: GoalRow,
  timeZone: string,
  at: Date,
  recent: { days: number; events: number },
): Promise<GoalSnapshot> {
  const sql = deps.db.sql;
  const today = localDate(at, timeZone);
  const [[figures], [runs], days, recentEvents, subGoals] = await Promise.all([
    store.goalFigures(sql, [goal.id], today, isoWeekStart(today), timeZone),
    store.streakRuns(sql, [goal.id], timeZone),
    store.progressBuckets(sql, goal, "day", addDays(today, 1 - recent.days), today, timeZone),
    store.eventsOf(sql, [goal.id], {
      limit: recent.events,
      after: null,
      before: null,
      backward: false,
    }),
    store.subGoalsOf(sql, [goal.id]),
  ]);
  const empty = { lastIndex: null, lastLength: 0, longest: 0 };
  return {
    today,
    currentValue: figures?.currentValue ?? 0,
    streak: {
      current: currentStreak(runs ?? empty, todayIndex(today, streakPeriod(goal))),
      longest: runs?.longest ?? 0,
    },
    days,
    recentEvents,
    subGoals,
  };
}

/**
 * Locks a check-in for share inside `tx` (by its public id, or by the goal's public id and the
 * day): false when it was undone or deleted.
 */
export const lockCheckIn = (
  tx: Queryable,
  ref: { checkInId?: string | null; goalId: string; date: string },
): Promise<boolean> => store.lockCheckIn(tx, ref);

/** Locks a progress event for share: its value and time now, or null when it was deleted. */
export const lockGoalEvent = (
  tx: Queryable,
  eventId: string,
): Promise<{ value: number; occurredAt: Date } | null> => store.lockGoalEvent(tx, eventId);
