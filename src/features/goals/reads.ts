/**
 * What the goal resolvers read per goal, batched: figures and streaks through a DataLoader per
 * time zone, and what the `goals` list reads ahead for its page (figures, streaks, sub-goals, a
 * page of events) through the goal activity cache, so that a list costs a fixed number of
 * statements and its goals' fields resolve without a promise each.
 */
import {
  type FieldNode,
  getArgumentValues,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from "graphql";
import { localDate } from "../../platform/dates.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { byKeys, groupedByKeys, loadByKey, requestMemo } from "../../graphql/loaders.ts";
import {
  type Connection,
  type PageArgs,
  pageWindow,
  toConnection,
} from "../../graphql/pagination.ts";
import { currentStreak, streakPeriod, type StreakRuns, todayIndex } from "./rules.ts";
import * as service from "./service.ts";
import type {
  GoalEventRow,
  GoalFigures,
  GoalRow,
  GoalsDeps,
  GoalStats,
  ListedGoalRow,
} from "./service.ts";
import { createGoalActivityCache } from "./activity-cache.ts";

export type { GoalStats };

interface LoadedStats {
  figures: GoalFigures;
  runs: StreakRuns;
}

/** What the `goals` list read ahead for one goal; undefined = not read ahead. */
export interface ReadAhead {
  stats: GoalStats | null | undefined;
  subGoals: GoalRow[] | undefined;
  events: { args: PageArgs; connection: Connection<GoalEventRow> } | undefined;
}

/** The Goal fields that read a goal's figures or streaks. */
const STATS_FIELDS = [
  "currentValue",
  "percentComplete",
  "currentStreak",
  "longestStreak",
  "checkedInToday",
];

export const pageKey = (args: PageArgs) =>
  JSON.stringify([args.first, args.after, args.last, args.before]);

export const samePage = (a: PageArgs, b: PageArgs) =>
  a.first === b.first && a.after === b.after && a.last === b.last && a.before === b.before;

export const eventKey = (r: GoalEventRow & { occurredKey: string }) => [
  r.occurredKey,
  r.publicId,
];

export type GoalReads = ReturnType<typeof createGoalReads>;

/** The goal reads of one schema (the read-ahead map and the activity cache are its own). */
export function createGoalReads(deps: Pick<GoalsDeps, "db" | "clock" | "users">) {
  const now = () => deps.clock.now();

  /** The time zone a goal's days follow: its owner's. */
  function zoneOf(goal: GoalRow, ctx: GraphQLContext): string | Promise<string> {
    if (ctx.viewer?.userId === goal.userId) return ctx.viewer.timeZone;
    return deps.users.loadUser(ctx, goal.userId).then((user) => user?.timeZone ?? "UTC");
  }

  /** Today in `zone`, the same for every resolver of a request. */
  const todayIn = (ctx: GraphQLContext, zone: string) =>
    requestMemo(ctx, `today:${zone}`, () => localDate(now(), zone));

  /**
   * Figures and streak runs of goals in `zone`: one statement for every goal, and a second only
   * for goals whose stored runs are stale.
   */
  async function loadStats(
    ids: readonly string[],
    zone: string,
    ctx: GraphQLContext,
  ): Promise<(LoadedStats | null)[]> {
    const today = todayIn(ctx, zone);
    const figures = byKeys(
      ids,
      await service.goalFigures(deps, ids, today, zone),
      (f) => f.goalId,
    );
    const stale = figures.flatMap((f) => f && !f.keptRuns ? [f.goalId] : []);
    const computed = new Map(
      stale.length ? (await service.streakRuns(deps, stale, zone)).map((r) => [r.goalId, r]) : [],
    );
    return figures.map((f) =>
      f && { figures: f, runs: f.keptRuns ?? computed.get(f.goalId) ?? noRuns }
    );
  }

  /** Today's period index in `zone`, for days and for ISO weeks. */
  const todayIndexes = (ctx: GraphQLContext, zone: string) =>
    requestMemo(ctx, `todayIndexes:${zone}`, () => {
      const today = todayIn(ctx, zone);
      return { day: todayIndex(today, "day"), week: todayIndex(today, "week") };
    });

  function statsOf(
    goal: GoalRow,
    loaded: LoadedStats | null,
    todays: { day: number; week: number },
  ): GoalStats | null {
    if (!loaded) return null;
    const today = todays[streakPeriod(goal)];
    return {
      figures: loaded.figures,
      currentStreak: currentStreak(loaded.runs, today),
      longestStreak: loaded.runs.longest,
    };
  }

  /**
   * A goal's figures and streaks through the request's loader for its zone (one batch for every
   * goal asked for in the same tick). Once per goal and request.
   */
  function stats(goal: GoalRow, ctx: GraphQLContext): Promise<GoalStats | null> {
    return requestMemo(ctx, `stats:${goal.id}`, async () => {
      const zone = await zoneOf(goal, ctx);
      const loaded = await ctx.loader<string, LoadedStats | null>(
        `goalStats:${zone}`,
        (ids) => loadStats(ids, zone, ctx),
      ).load(goal.id);
      return statsOf(goal, loaded, todayIndexes(ctx, zone));
    });
  }

  /**
   * What the `goals` list read ahead for its goals' fields, so that those resolve without a
   * promise each; a field not read ahead (or asked for with other arguments) loads as usual.
   */
  const readAhead = new WeakMap<GoalRow, ReadAhead>();
  const activity = createGoalActivityCache();

  /** The stats of `goal` picked by `pick`: read ahead, or through the loader. */
  function withStats<T>(
    goal: GoalRow,
    ctx: GraphQLContext,
    pick: (s: GoalStats | null) => T,
  ): T | Promise<T> {
    const ahead = readAhead.get(goal);
    return ahead?.stats !== undefined ? pick(ahead.stats) : stats(goal, ctx).then(pick);
  }

  /**
   * Reads, for a page of the viewer's goals, what the selection's per-goal fields need (figures
   * and streaks, one page of events: from the activity cache, or read in parallel), beside the
   * sub-goals the page's statement read (null when not asked for).
   */
  async function readAheadFor(
    goals: ListedGoalRow[],
    subGoals: GoalRow[] | null,
    fields: Map<string, FieldNode[]>,
    ctx: GraphQLContext,
    info: GraphQLResolveInfo,
  ) {
    if (!goals.length) return;
    const wantsStats = STATS_FIELDS.some((f) => fields.has(f));
    const events = eventsPage(fields.get("events"), info);
    if (!wantsStats && !subGoals && !events) return;
    const ids = goals.map((g) => g.id);
    const zone = requireViewer(ctx).timeZone;
    const today = todayIn(ctx, zone);
    const [loaded, eventGroups] = await Promise.all([
      wantsStats
        ? throughActivityCache(
          goals,
          (g) => `stats|${zone}|${today}|${g.kind}|${g.startValue}|${g.cadence}|${g.timesPerWeek}`,
          (missing) => loadStats(missing.map((g) => g.id), zone, ctx),
        )
        : null,
      events
        ? throughActivityCache(
          goals,
          () => `events|${pageKey(events.args)}`,
          async (missing) => {
            const missingIds = missing.map((g) => g.id);
            const rows = await service.goalEventsOf(deps, missingIds, events.window);
            return groupedByKeys(missingIds, rows, (r) => r.goalId);
          },
        )
        : null,
    ]);
    const todays = todayIndexes(ctx, zone);
    const subGoalGroups = subGoals && groupedByKeys(ids, subGoals, (r) => r.parentId);
    goals.forEach((goal, i) => {
      readAhead.set(goal, {
        stats: loaded ? statsOf(goal, loaded[i] ?? null, todays) : undefined,
        subGoals: subGoalGroups?.[i],
        events: events && eventGroups
          ? {
            args: events.args,
            connection: toConnection(
              eventGroups[i] ?? [],
              events.window,
              eventKey,
              eventCount(ctx, goal.id),
            ),
          }
          : undefined,
      });
    });
  }

  /**
   * Per goal, what `keyOf` names in the activity cache at the goal's version; what is not kept
   * is read by `read` (for those goals, in order; null for a goal gone meanwhile) and kept.
   */
  async function throughActivityCache<T>(
    goals: ListedGoalRow[],
    keyOf: (goal: ListedGoalRow) => string,
    read: (missing: ListedGoalRow[]) => Promise<(T | null)[]>,
  ): Promise<(T | null)[]> {
    const keys = goals.map(keyOf);
    const found: (T | null | undefined)[] = goals.map((g, i) =>
      activity.get<T>(g.id, g.activityVersion, keys[i])
    );
    const missing = goals.flatMap((_, i) => found[i] === undefined ? [i] : []);
    if (missing.length) {
      const values = await read(missing.map((i) => goals[i]));
      missing.forEach((at, j) => {
        const value = values[j];
        found[at] = value;
        if (value !== null) activity.set(goals[at].id, goals[at].activityVersion, keys[at], value);
      });
    }
    return found as (T | null)[];
  }

  /** The window of the one `events` field selected, or null (none, several, or bad arguments). */
  function eventsPage(nodes: FieldNode[] | undefined, info: GraphQLResolveInfo) {
    if (nodes?.length !== 1) return null;
    const goalType = info.schema.getType("Goal") as GraphQLObjectType;
    try {
      const args = getArgumentValues(goalType.getFields().events, nodes[0], info.variableValues);
      return { args: args as PageArgs, window: pageWindow(args, ["timestamp", "publicId"]) };
    } catch {
      // The field's own resolver reports the error at its path.
      return null;
    }
  }

  const noRuns = { lastIndex: null, lastLength: 0, longest: 0 };

  /** A goal's event count, asked for only when a client selects `totalCount`. */
  const eventCount = (ctx: GraphQLContext, goalId: string) => async () =>
    (await loadByKey(
      ctx,
      "goalEventCount",
      (ids) => service.goalEventCounts(deps, ids),
      (r) => r.goalId,
      goalId,
    ))?.n ?? 0;

  return {
    todayIn,
    stats,
    withStats,
    readAheadFor,
    /** What the `goals` list read ahead for `goal`, if it did. */
    readAheadOf: (goal: GoalRow) => readAhead.get(goal),
    eventCount,
  };
}
