/**
 * GraphQL for goals, habits and progress: `goals`, `goal`, `publicGoal`, `goalProgressData`,
 * `addGoal`, `updateGoal`, `addGoalEvent`, `checkInHabit`, `useStreakFreeze`
 * (`generateMilestones` is AI coaching's, in `src/features/coaching/`). Mutations adapt their
 * arguments to the use cases of `service.ts`; reads load per-goal figures through DataLoaders so
 * a list costs a fixed number of statements.
 */
import {
  type FieldNode,
  getArgumentValues,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from "graphql";
import type { Database } from "../../platform/db.ts";
import { isoWeekStart, localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type GraphQLContext, requireViewer, viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { byKeys, groupedByKeys, loadByKey, requestMemo } from "../../graphql/loaders.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { connectionItemFields } from "../../graphql/selection.ts";
import {
  type Connection,
  type PageArgs,
  pageWindow,
  paginate,
  toConnection,
} from "../../graphql/pagination.ts";
import {
  completionPeriods,
  completionRate,
  currentStreak,
  type GoalChanges,
  type GoalStatus,
  type GroupBy,
  pace,
  paceWindowStart,
  percentComplete,
  progressRange,
  streakPeriod,
  type StreakRuns,
  todayIndex,
} from "./rules.ts";
import * as store from "./store.ts";
import type { GoalRow } from "./store.ts";
import * as service from "./service.ts";
import type { AddGoalEventInput, CheckInInput, GoalsDeps, NewGoalArgs } from "./service.ts";
import { createGoalActivityCache } from "./activity-cache.ts";

const typeDefs = /* GraphQL */ `
  enum GoalKind { habit target }
  enum GoalStatus { active completed archived }
  enum GoalVisibility { private public }
  "How often a habit is due: every day, or timesPerWeek times per ISO week (Monday to Sunday)."
  enum HabitCadence { daily weekly }
  enum ProgressGroupBy { day week month }

  "A goal of the signed-in user: a habit (check-ins, streaks) or a target (a value to reach)."
  type Goal {
    id: ID!
    title: String!
    description: String
    kind: GoalKind!
    status: GoalStatus!
    visibility: GoalVisibility!
    "Targets: the unit of the values, e.g. km."
    unit: String
    "Targets: the value at the start (default 0)."
    startValue: Float
    "Targets: the value to reach (above or below startValue)."
    targetValue: Float
    "Optional."
    dueDate: Date
    "Habits only."
    cadence: HabitCadence
    "Weekly habits only: check-ins needed per ISO week."
    timesPerWeek: Int
    "The goal this one is a sub-goal of."
    parent: Goal
    subGoals: [Goal!]!
    "Targets: startValue plus every progress event. Habits: check-ins in the current period (today, or this week for weekly habits)."
    currentValue: Float!
    "0..100. Targets: share of the way from startValue to targetValue. Habits: share of the current period's required check-ins."
    percentComplete: Float!
    "Consecutive periods (days; ISO weeks for weekly habits) up to now; an unchecked today does not break it. Targets count days with progress."
    currentStreak: Int!
    longestStreak: Int!
    "Habits: whether today (in the user's time zone) is checked in."
    checkedInToday: Boolean!
    "Progress events, newest first."
    events(first: Int, after: String, last: Int, before: String): GoalEventConnection!
    completedAt: DateTime
    createdAt: DateTime!
    updatedAt: DateTime!
  }

  "A progress event of a target: value is an increment (negative corrects)."
  type GoalEvent {
    id: ID!
    value: Float!
    note: String
    occurredAt: DateTime!
    createdAt: DateTime!
  }
  ${connectionTypeDefs("Goal")}
  ${connectionTypeDefs("GoalEvent")}

  "What anyone may see of a public goal: no notes, events or other goals of the owner."
  type PublicGoal {
    id: ID!
    title: String!
    description: String
    kind: GoalKind!
    status: GoalStatus!
    unit: String
    startValue: Float
    targetValue: Float
    dueDate: Date
    cadence: HabitCadence
    timesPerWeek: Int
    currentValue: Float!
    percentComplete: Float!
    currentStreak: Int!
    owner: User!
    completedAt: DateTime
    createdAt: DateTime!
  }

  type CheckIn {
    id: ID!
    "The local day checked in."
    date: Date!
    createdAt: DateTime!
  }

  type ProgressBucket {
    "First day of the period, in the user's time zone."
    periodStart: Date!
    "Sum of event values (check-ins count 1 each)."
    sum: Float!
    count: Int!
    "The goal's value at the end of the period (targets include startValue)."
    cumulativeValue: Float!
  }

  type Pace {
    "Change per day needed to reach the target by dueDate; null without a due date."
    requiredPerDay: Float
    "Average change per day over the last 14 days."
    actualPerDay: Float!
    remaining: Float!
    "Days until dueDate (negative = overdue); null without a due date."
    daysLeft: Int
    "When the target is reached at the actual rate; null when it never is."
    projectedCompletionDate: Date
    onTrack: Boolean!
  }

  type GoalProgressData {
    goal: Goal!
    groupBy: ProgressGroupBy!
    "The range covered (from is aligned to a period start)."
    from: Date!
    to: Date!
    timeZone: String!
    buckets: [ProgressBucket!]!
    "Targets only."
    pace: Pace
    currentStreak: Int!
    longestStreak: Int!
    "Habits: share (0..1) of the periods in the range, from the habit's first day to today, that met the cadence. Targets: null."
    completionRate: Float
  }

  type GoalPayload {
    goal: Goal
    "Badges the action earned (shown as a celebration)."
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type AddGoalEventPayload {
    event: GoalEvent
    goal: Goal
    "True when this event completed the target."
    goalCompleted: Boolean!
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type CheckInHabitPayload {
    checkIn: CheckIn
    goal: Goal
    "True when the day was already checked in (nothing changed)."
    alreadyCheckedIn: Boolean!
    "True when this check-in earned a streak freeze."
    freezeEarned: Boolean!
    badgesEarned: [Badge!]!
    errors: [UserError!]!
  }

  type UseStreakFreezePayload {
    goal: Goal
    "Freezes the user holds after this one."
    freezesLeft: Int!
    errors: [UserError!]!
  }

  "Progress recorded on a target."
  type GoalEventActivity {
    "Null when the goal is no longer visible to the viewer."
    goal: Goal
    goalTitle: String!
    value: Float!
    unit: String
    note: String
  }

  "A habit check-in."
  type CheckInActivity {
    goal: Goal
    goalTitle: String!
    "The local day checked in."
    date: Date!
    "The streak after this check-in."
    streak: Int!
  }

  type GoalCompletedActivity {
    goal: Goal
    goalTitle: String!
  }

  extend union FeedActivity = GoalEventActivity | CheckInActivity | GoalCompletedActivity

  extend type CurrentUser {
    "Streak freezes held: one is earned each time a habit's streak reaches a multiple of 7 periods (at most 3 held)."
    streakFreezes: Int!
  }

  extend type Query {
    "The current user's top-level goals, newest first; archived ones only with status: archived."
    goals(status: GoalStatus, first: Int, after: String, last: Int, before: String): GoalConnection!
    "One of the current user's goals; null when there is none with this id."
    goal(id: String!): Goal
    "A public goal; no session needed. Null when there is no public goal with this id."
    publicGoal(id: String!): PublicGoal
    "Progress of one of the current user's goals, grouped in the user's time zone (default range: the last 30 days, 12 weeks or 12 months). Null when there is no such goal."
    goalProgressData(goalId: String!, from: Date, to: Date, groupBy: ProgressGroupBy! = day): GoalProgressData
  }

  extend type Mutation {
    addGoal(
      title: String!
      kind: GoalKind!
      description: String
      unit: String
      startValue: Float
      targetValue: Float
      dueDate: Date
      cadence: HabitCadence
      timesPerWeek: Int
      visibility: GoalVisibility = private
      parentGoalId: String
    ): GoalPayload!
    updateGoal(
      goalId: String!
      title: String
      description: String
      status: GoalStatus
      visibility: GoalVisibility
      unit: String
      startValue: Float
      targetValue: Float
      dueDate: Date
      timesPerWeek: Int
    ): GoalPayload!
    "Records progress on a target; occurredAt defaults to now."
    addGoalEvent(goalId: String!, value: Float!, note: String, occurredAt: DateTime): AddGoalEventPayload!
    "Checks in a habit for a local day (default today; up to 7 days back)."
    checkInHabit(goalId: String!, date: Date): CheckInHabitPayload!
    "Spends a streak freeze to cover a missed day (within the last 7 days)."
    useStreakFreeze(goalId: String!, date: Date!): UseStreakFreezePayload!
  }
`;

/** A goal by internal id through the request's DataLoader (no access check). */
function loadGoal(ctx: GraphQLContext, sql: Database["sql"], id: string) {
  return loadByKey(ctx, "goalById", (ids) => store.goalsByIds(sql, ids), (r) => r.id, id);
}

const iso = (d: Date | null) => d ? d.toISOString() : null;

type Args = Record<string, unknown>;

interface LoadedStats {
  figures: store.GoalFigures;
  runs: StreakRuns;
}

interface GoalStats {
  figures: store.GoalFigures;
  currentStreak: number;
  longestStreak: number;
}

/** What the `goals` list read ahead for one goal; undefined = not read ahead. */
interface ReadAhead {
  stats: GoalStats | null | undefined;
  subGoals: GoalRow[] | undefined;
  events: { args: PageArgs; connection: Connection<store.GoalEventRow> } | undefined;
}

/** The Goal fields that read a goal's figures or streaks. */
const STATS_FIELDS = [
  "currentValue",
  "percentComplete",
  "currentStreak",
  "longestStreak",
  "checkedInToday",
];

const currentValueOf = (s: GoalStats | null) => s?.figures.currentValue ?? 0;
const currentStreakOf = (s: GoalStats | null) => s?.currentStreak ?? 0;
const longestStreakOf = (s: GoalStats | null) => s?.longestStreak ?? 0;
const checkedInTodayOf = (s: GoalStats | null) => s?.figures.checkedInToday ?? false;

const pageKey = (args: PageArgs) =>
  JSON.stringify([args.first, args.after, args.last, args.before]);

const samePage = (a: PageArgs, b: PageArgs) =>
  a.first === b.first && a.after === b.after && a.last === b.last && a.before === b.before;

const eventKey = (r: store.GoalEventRow & { occurredKey: string }) => [r.occurredKey, r.publicId];

export function goalsModule(deps: GoalsDeps): GraphQLModule {
  const sql = deps.db.sql;
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
      await store.goalFigures(sql, ids, today, isoWeekStart(today), zone),
      (f) => f.goalId,
    );
    const stale = figures.flatMap((f) => f && !f.keptRuns ? [f.goalId] : []);
    const computed = new Map(
      stale.length ? (await store.streakRuns(sql, stale, zone)).map((r) => [r.goalId, r]) : [],
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
    goals: store.ListedGoalRow[],
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
            const rows = await store.eventsOf(sql, missingIds, events.window);
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
    goals: store.ListedGoalRow[],
    keyOf: (goal: store.ListedGoalRow) => string,
    read: (missing: store.ListedGoalRow[]) => Promise<(T | null)[]>,
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
      return { args: args as PageArgs, window: pageWindow(args, ["string", "string"]) };
    } catch {
      // The field's own resolver reports the error at its path.
      return null;
    }
  }

  const noRuns = { lastIndex: null, lastLength: 0, longest: 0 };

  /** A feed activity's goal, when it is the viewer's own. */
  const goalOf = async (a: { goalId?: unknown }, _: Args, ctx: GraphQLContext) => {
    if (typeof a.goalId !== "string") return null;
    const goal = await loadGoal(ctx, sql, a.goalId);
    return goal && goal.userId === ctx.viewer?.userId ? goal : null;
  };

  const goalFields = {
    id: (g: GoalRow) => g.publicId,
    completedAt: (g: GoalRow) => iso(g.completedAt),
    createdAt: (g: GoalRow) => g.createdAt.toISOString(),
    currentValue: (g: GoalRow, _: Args, ctx: GraphQLContext) => withStats(g, ctx, currentValueOf),
    percentComplete: (g: GoalRow, _: Args, ctx: GraphQLContext) =>
      withStats(g, ctx, (s) => percentComplete(g, currentValueOf(s))),
    currentStreak: (g: GoalRow, _: Args, ctx: GraphQLContext) => withStats(g, ctx, currentStreakOf),
  };

  const Goal = {
    ...goalFields,
    updatedAt: (g: GoalRow) => g.updatedAt.toISOString(),
    longestStreak: (g: GoalRow, _: Args, ctx: GraphQLContext) => withStats(g, ctx, longestStreakOf),
    checkedInToday: (g: GoalRow, _: Args, ctx: GraphQLContext) =>
      withStats(g, ctx, checkedInTodayOf),
    parent: (g: GoalRow, _: Args, ctx: GraphQLContext) =>
      g.parentId ? loadGoal(ctx, sql, g.parentId) : null,
    subGoals: (g: GoalRow, _: Args, ctx: GraphQLContext) =>
      readAhead.get(g)?.subGoals ??
        ctx.loader<string, GoalRow[]>("subGoals", async (ids) => {
          return groupedByKeys(ids, await store.subGoalsOf(sql, ids), (r) => r.parentId);
        }).load(g.id),
    /** One statement for the same page of every goal of a request (and one for the counts). */
    events: (g: GoalRow, args: PageArgs, ctx: GraphQLContext) => {
      const ahead = readAhead.get(g)?.events;
      if (ahead && samePage(ahead.args, args)) return ahead.connection;
      const key = pageKey(args);
      const window = pageWindow(args, ["string", "string"]);
      return ctx.loader<string, Connection<store.GoalEventRow>>(
        `goalEvents:${key}`,
        async (ids) => {
          const groups = groupedByKeys(
            ids,
            await store.eventsOf(sql, ids, window),
            (r) => r.goalId,
          );
          return ids.map((id, i) => toConnection(groups[i], window, eventKey, eventCount(ctx, id)));
        },
      ).load(g.id);
    },
  };

  /** A goal's event count, asked for only when a client selects `totalCount`. */
  const eventCount = (ctx: GraphQLContext, goalId: string) => async () =>
    (await loadByKey(
      ctx,
      "goalEventCount",
      (ids) => store.eventCounts(sql, ids),
      (r) => r.goalId,
      goalId,
    ))?.n ?? 0;

  return {
    typeDefs,
    publicFields: ["publicGoal"],
    resolvers: {
      Goal,
      PublicGoal: {
        ...goalFields,
        owner: (g: GoalRow, _: Args, ctx: GraphQLContext) => deps.users.loadUser(ctx, g.userId),
      },
      GoalEventActivity: { goal: goalOf },
      CheckInActivity: { goal: goalOf, streak: (a: { streak?: number }) => a.streak ?? 0 },
      GoalCompletedActivity: { goal: goalOf },
      GoalEvent: {
        id: (e: store.GoalEventRow) => e.publicId,
        occurredAt: (e: store.GoalEventRow) => e.occurredAt.toISOString(),
        createdAt: (e: store.GoalEventRow) => e.createdAt.toISOString(),
      },
      CheckIn: {
        id: (c: { publicId: string }) => c.publicId,
        date: (c: { day: string }) => c.day,
        createdAt: (c: { createdAt: Date }) => c.createdAt.toISOString(),
      },
      CurrentUser: {
        streakFreezes: async (u: { id: string }, _: Args, ctx: GraphQLContext) =>
          (await loadByKey(
            ctx,
            "freezeBalance",
            (ids) => store.freezeBalances(sql, ids),
            (r) => r.userId,
            u.id,
          ))?.available ?? 0,
      },
      Query: {
        goals: async (
          _: unknown,
          args: PageArgs & { status?: GoalStatus | null },
          ctx: GraphQLContext,
          info: GraphQLResolveInfo,
        ) => {
          const userId = requireViewer(ctx).userId;
          const status = args.status ?? null;
          const fields = connectionItemFields(info);
          let subGoals: GoalRow[] | null = null;
          const connection = await paginate(
            args,
            ["string", "string"],
            async (window) => {
              if (!fields.has("subGoals")) {
                return await store.topLevelGoals(sql, userId, status, window);
              }
              const listed = await store.topLevelGoalsWithSubGoals(sql, userId, status, window);
              subGoals = listed.subGoals;
              return listed.goals;
            },
            (r) => [r.createdKey, r.publicId],
            { totalCount: () => store.countTopLevelGoals(sql, userId, status) },
          );
          await readAheadFor(connection.nodes, subGoals, fields, ctx, info);
          return connection;
        },
        goal: (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
          service.ownGoal(deps, requireViewer(ctx), args.id),
        publicGoal: async (_: unknown, args: { id: string }) =>
          looksLikePublicId(args.id) ? await store.publicGoal(sql, args.id) : null,
        goalProgressData: viewerField(
          async (
            viewer,
            args: { goalId: string; groupBy: GroupBy; from?: string | null; to?: string | null },
            ctx,
          ) => {
            const goal = await service.ownGoal(deps, viewer, args.goalId);
            if (!goal) return null;
            const zone = viewer.timeZone;
            const today = todayIn(ctx, zone);
            const range = progressRange(args.groupBy, today, args.from, args.to);
            if ("error" in range) throw badUserInput(range.error);
            const target = goal.kind === "target";
            const since = paceWindowStart(now());
            const [buckets, goalStats, recent, completionRate] = await Promise.all([
              store.progressBuckets(sql, goal, args.groupBy, range.from, range.to, zone),
              stats(goal, ctx),
              target ? store.sumSince(sql, goal.id, since) : null,
              target ? null : habitCompletionRate(goal, range.from, range.to, today, zone),
            ]);
            const paceData = recent === null
              ? null
              : pace(goal, goalStats?.figures.currentValue ?? 0, recent, today);
            return {
              goal,
              groupBy: args.groupBy,
              from: range.from,
              to: range.to,
              timeZone: zone,
              buckets,
              pace: paceData,
              currentStreak: goalStats?.currentStreak ?? 0,
              longestStreak: goalStats?.longestStreak ?? 0,
              completionRate,
            };
          },
        ),
      },
      Mutation: {
        addGoal: (_: unknown, args: NewGoalArgs, ctx: GraphQLContext) =>
          service.addGoal(deps, requireViewer(ctx), args),
        updateGoal: (_: unknown, args: GoalChanges & { goalId: string }, ctx: GraphQLContext) =>
          service.updateGoal(deps, requireViewer(ctx), args),
        addGoalEvent: (_: unknown, args: AddGoalEventInput, ctx: GraphQLContext) =>
          service.addGoalEvent(deps, requireViewer(ctx), args),
        checkInHabit: (_: unknown, args: CheckInInput, ctx: GraphQLContext) =>
          service.checkInHabit(deps, requireViewer(ctx), args),
        useStreakFreeze: (
          _: unknown,
          args: { goalId: string; date: string },
          ctx: GraphQLContext,
        ) => service.useStreakFreeze(deps, requireViewer(ctx), args),
      },
    },
  };

  async function habitCompletionRate(
    goal: GoalRow,
    from: string,
    to: string,
    today: string,
    zone: string,
  ): Promise<number> {
    const periods = completionPeriods(goal, localDate(goal.createdAt, zone), from, to, today);
    if (!periods) return 0;
    const met = await store.qualifyingPeriods(sql, goal, periods.start, periods.end);
    return completionRate(met, periods.possible);
  }
}
