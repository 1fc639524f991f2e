/**
 * GraphQL for goals, habits and progress: `goals`, `goal`, `publicGoal`, `goalProgressData`,
 * `addGoal`, `updateGoal`, `addGoalEvent`, `checkInHabit`, `useStreakFreeze`
 * (`generateMilestones` is AI coaching's, in `src/features/coaching/`). Resolvers validate with the rules, run SQL from the store, and load
 * per-goal figures through DataLoaders so a list costs a fixed number of statements.
 */
import {
  type FieldNode,
  getArgumentValues,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from "graphql";
import { type Database, type Queryable, Rollback, transaction } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import { isoWeekStart, localDate, periodIndexStart } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import {
  type GraphQLContext,
  requireViewer,
  type Viewer,
  viewerField,
} from "../../graphql/context.ts";
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
import { type UserError, userError } from "../../platform/user-error.ts";
import { isForeignKeyViolation, unlessViolated } from "../../platform/db-errors.ts";
import type { EventPublisher } from "../events.ts";
import type { BadgeEvent, BadgeRow, BadgesApi } from "../badges/mod.ts";
import type { FeedApi } from "../feed/mod.ts";
import type { FunnelApi } from "../funnel/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  type ActivityRef,
  checkInErrors,
  currentStreak,
  earnsFreeze,
  freezeErrors,
  type GoalChanges,
  goalEventInput,
  goalPatch,
  type GoalStatus,
  type GroupBy,
  newGoalErrors,
  type NewGoalInput,
  pace,
  PACE_WINDOW_DAYS,
  percentComplete,
  progressRange,
  statusesLeadingTo,
  streakPeriod,
  type StreakRuns,
  targetReached,
  todayIndex,
  type Visibility,
} from "./rules.ts";
import * as store from "./store.ts";
import type { GoalRow } from "./store.ts";
import { recordCompletion } from "./completion.ts";
import { createGoalActivityCache } from "./activity-cache.ts";

/** What points and challenge scores owe to activities that change after being credited. */
export interface ActivityLedger {
  /**
   * Inside the transaction that deleted the activities' rows (after the delete, so a credit
   * running meanwhile is either seen or finds the row gone): takes back what they were credited.
   */
  withdraw(tx: Queryable, userId: string, activities: ActivityRef[], at: Date): Promise<void>;
  /**
   * Inside the transaction that changed a progress event's value or time (after the update):
   * what it contributes is counted again from what it is now.
   */
  recount(
    tx: Queryable,
    userId: string,
    event: { eventId: string; value: number; occurredAt: Date },
    at: Date,
  ): Promise<void>;
}

/** What the goals feature needs: events go out through the transactional outbox. */
export interface GoalsDeps {
  db: Database;
  clock: Clock;
  log: Logger;
  events: EventPublisher;
  users: Pick<UsersApi, "loadUser">;
  badges: Pick<BadgesApi, "awardFor" | "revokeUnjustified">;
  feed: Pick<FeedApi, "record" | "remove" | "removeOfGoals" | "revise">;
  funnel: Pick<FunnelApi, "recordStep">;
  /** Points and challenge scores of activity that is undone, edited or deleted. */
  activity: ActivityLedger;
  /** Sends `streak.at_risk` (the hourly `goals.streak_at_risk` schedule). */
  notifications: Pick<NotificationsApi, "notifyMany">;
}

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

type NewGoalArgs = NewGoalInput & { visibility?: Visibility | null; parentGoalId?: string | null };

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

  /** The viewer's goal of `id`, or null (another user's goal included). */
  async function ownGoal(viewer: Viewer, id: unknown): Promise<GoalRow | null> {
    return typeof id === "string" && looksLikePublicId(id)
      ? await store.ownGoal(sql, viewer.userId, id)
      : null;
  }

  /** The `not_found` error of a mutation's `goalId`. */
  const noGoal = (): UserError[] => [userError("not_found", "no such goal of yours", "goalId")];
  const parentGone = (): UserError[] => [
    userError("not_found", "parentGoalId does not name one of your goals", "parentGoalId"),
  ];

  /** A write naming a goal deleted meanwhile (its foreign key refuses it) answers `refusal`. */
  const goneMeanwhile = <T, O>(refusal: O, work: () => Promise<T>) =>
    unlessViolated(isForeignKeyViolation, refusal, work);

  const award = (tx: Queryable, userId: string, event: BadgeEvent): Promise<BadgeRow[]> =>
    deps.badges.awardFor(tx, userId, event, now());

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
          ownGoal(requireViewer(ctx), args.id),
        publicGoal: async (_: unknown, args: { id: string }) =>
          looksLikePublicId(args.id) ? await store.publicGoal(sql, args.id) : null,
        goalProgressData: viewerField(
          async (
            viewer,
            args: { goalId: string; groupBy: GroupBy; from?: string | null; to?: string | null },
            ctx,
          ) => {
            const goal = await ownGoal(viewer, args.goalId);
            if (!goal) return null;
            const zone = viewer.timeZone;
            const today = todayIn(ctx, zone);
            const range = progressRange(args.groupBy, today, args.from, args.to);
            if ("error" in range) throw badUserInput(range.error);
            const target = goal.kind === "target";
            const since = new Date(now().getTime() - PACE_WINDOW_DAYS * 86_400_000);
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
          addGoal(requireViewer(ctx), args),
        updateGoal: (_: unknown, args: GoalChanges & { goalId: string }, ctx: GraphQLContext) =>
          updateGoal(requireViewer(ctx), args),
        addGoalEvent: (
          _: unknown,
          args: { goalId: string; value: number; note?: string | null; occurredAt?: Date | null },
          ctx: GraphQLContext,
        ) => addGoalEvent(requireViewer(ctx), args),
        checkInHabit: (
          _: unknown,
          args: { goalId: string; date?: string | null },
          ctx: GraphQLContext,
        ) => checkInHabit(requireViewer(ctx), args),
        useStreakFreeze: (
          _: unknown,
          args: { goalId: string; date: string },
          ctx: GraphQLContext,
        ) => useStreakFreeze(requireViewer(ctx), args),
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
    const weekly = goal.cadence === "weekly";
    const firstDay = localDate(goal.createdAt, zone);
    const start = [from, weekly ? isoWeekStart(firstDay) : firstDay].sort().at(-1)!;
    const end = [to, today].sort()[0];
    if (start > end) return 0;
    const possible = weekly
      ? Math.floor((Date.parse(isoWeekStart(end)) - Date.parse(isoWeekStart(start))) / 6048e5) + 1
      : (Date.parse(end) - Date.parse(start)) / 864e5 + 1;
    const met = await store.qualifyingPeriods(sql, goal, start, end);
    return Math.round(Math.min(1, met / possible) * 1000) / 1000;
  }

  async function parentError(viewer: Viewer, parentGoalId: unknown) {
    if (parentGoalId === null || parentGoalId === undefined) return { parentId: null };
    const parent = typeof parentGoalId === "string" && looksLikePublicId(parentGoalId)
      ? await store.ownGoal(sql, viewer.userId, parentGoalId)
      : null;
    if (!parent) {
      return {
        error: userError(
          "not_found",
          "parentGoalId does not name one of your goals",
          "parentGoalId",
        ),
      };
    }
    const invalid = (message: string) => ({ error: userError("invalid", message, "parentGoalId") });
    if (parent.parentId) return invalid("a sub-goal cannot have sub-goals");
    if (parent.status === "archived") return invalid("the parent goal is archived");
    return { parentId: parent.id };
  }

  async function addGoal(viewer: Viewer, args: NewGoalArgs) {
    const { visibility, parentGoalId, ...input } = args;
    const errors = newGoalErrors(input, localDate(now(), viewer.timeZone));
    const parent = await parentError(viewer, parentGoalId);
    if ("error" in parent) errors.push(parent.error!);
    if (errors.length) return { goal: null, badgesEarned: [], errors };
    return await goneMeanwhile(
      { goal: null, badgesEarned: [], errors: parentGone() },
      () =>
        sql.begin(async (tx) => {
          const goal = await store.insertGoal(tx, viewer.userId, {
            ...input,
            parentId: parent.parentId ?? null,
            visibility: visibility ?? "private",
          }, now());
          await deps.events.publish(tx, "goals.goal_created", {
            userId: viewer.userId,
            goalId: goal.publicId,
          });
          await deps.funnel.recordStep(tx, viewer.userId, "first_goal", now());
          const badgesEarned = await award(tx, viewer.userId, { type: "goal_created" });
          return { goal, badgesEarned, errors: [] };
        }),
    );
  }

  async function updateGoal(viewer: Viewer, args: GoalChanges & { goalId: string }) {
    const goal = await ownGoal(viewer, args.goalId);
    if (!goal) return { goal: null, badgesEarned: [], errors: noGoal() };
    const { goalId: _, ...changes } = args;
    const { patch, errors } = goalPatch(goal, changes, localDate(now(), viewer.timeZone));
    if (errors.length) return { goal: null, badgesEarned: [], errors };
    const changesStatus = patch.status !== undefined && patch.status !== goal.status;
    return await sql.begin(async (tx) => {
      const updated = await store.updateGoal(
        tx,
        goal.id,
        patch,
        changesStatus ? statusesLeadingTo(patch.status!) : null,
        now(),
      );
      if (!updated) {
        return {
          goal: null,
          badgesEarned: [],
          errors: [userError("conflict", "the goal changed meanwhile; reload it", "status")],
        };
      }
      let badgesEarned: BadgeRow[] = [];
      if (changesStatus && updated.status === "completed") {
        badgesEarned = await completed(tx, updated);
      }
      return { goal: updated, badgesEarned, errors: [] };
    });
  }

  /** What follows a goal's completion: feed item, domain event, badges. */
  function completed(tx: Queryable, goal: GoalRow): Promise<BadgeRow[]> {
    return recordCompletion(deps, tx, goal, now());
  }

  async function addGoalEvent(
    viewer: Viewer,
    args: { goalId: string; value: number; note?: string | null; occurredAt?: Date | null },
  ) {
    const goal = await ownGoal(viewer, args.goalId);
    if (!goal) {
      return { event: null, goal: null, goalCompleted: false, badgesEarned: [], errors: noGoal() };
    }
    const { value, note, occurredAt, errors } = goalEventInput(goal, args, now());
    if (errors.length) {
      return { event: null, goal: null, goalCompleted: false, badgesEarned: [], errors };
    }
    return await goneMeanwhile({
      event: null,
      goal: null,
      goalCompleted: false,
      badgesEarned: [],
      errors: noGoal(),
    }, () =>
      sql.begin(async (tx) => {
        const event = await store.insertGoalEvent(tx, goal, value, note, occurredAt);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "goal_event",
          occurredAt,
          data: {
            goalId: goal.id,
            eventId: event.publicId,
            goalTitle: goal.title,
            value,
            unit: goal.unit,
            note,
          },
        });
        await deps.events.publish(tx, "goals.progress_recorded", {
          userId: goal.userId,
          goalId: goal.publicId,
          eventId: event.publicId,
          value,
          occurredAt: occurredAt.toISOString(),
        });
        const badgesEarned = await award(tx, goal.userId, { type: "progress_recorded" });
        let current = goal;
        let goalCompleted = false;
        if (goal.status === "active" && targetReached(goal, await store.targetValueNow(tx, goal))) {
          const done = await store.completeGoal(tx, goal.id, now());
          if (done) {
            current = done;
            goalCompleted = true;
            badgesEarned.push(...await completed(tx, done));
          }
        }
        return { event, goal: current, goalCompleted, badgesEarned, errors: [] };
      }));
  }

  async function checkInHabit(viewer: Viewer, args: { goalId: string; date?: string | null }) {
    const goal = await ownGoal(viewer, args.goalId);
    const today = localDate(now(), viewer.timeZone);
    const date = args.date ?? today;
    const errors = goal ? checkInErrors(goal, date, today) : noGoal();
    if (!goal || errors.length) {
      return {
        checkIn: null,
        goal: null,
        alreadyCheckedIn: false,
        freezeEarned: false,
        badgesEarned: [],
        errors,
      };
    }
    return await goneMeanwhile({
      checkIn: null,
      goal: null,
      alreadyCheckedIn: false,
      freezeEarned: false,
      badgesEarned: [],
      errors: noGoal(),
    }, () =>
      sql.begin(async (tx) => {
        const checkIn = await store.insertCheckIn(tx, goal, date);
        if (!checkIn) {
          return {
            checkIn: await store.checkInOn(tx, goal.id, date),
            goal,
            alreadyCheckedIn: true,
            freezeEarned: false,
            badgesEarned: [],
            errors: [],
          };
        }
        await deps.funnel.recordStep(tx, goal.userId, "first_check_in", now());
        const period = streakPeriod(goal);
        const [runs] = await store.streakRuns(tx, [goal.id], viewer.timeZone);
        const streak = runs ? currentStreak(runs, todayIndex(today, period)) : 0;
        const freezeEarned = earnsFreeze(streak) &&
          await store.grantFreeze(tx, goal, periodIndexStart(runs!.lastIndex!, period), streak);
        await deps.feed.record(tx, {
          userId: goal.userId,
          kind: "check_in",
          occurredAt: now(),
          data: { goalId: goal.id, goalTitle: goal.title, date, streak },
        });
        await deps.events.publish(tx, "habits.checked_in", {
          userId: goal.userId,
          goalId: goal.publicId,
          checkInId: checkIn.publicId,
          date,
          streak,
          occurredAt: now().toISOString(),
        });
        const badgesEarned = await award(tx, goal.userId, {
          type: "habit_checked_in",
          streak,
          period,
        });
        return { checkIn, goal, alreadyCheckedIn: false, freezeEarned, badgesEarned, errors: [] };
      }));
  }

  async function useStreakFreeze(viewer: Viewer, args: { goalId: string; date: string }) {
    const goal = await ownGoal(viewer, args.goalId);
    const today = localDate(now(), viewer.timeZone);
    const date = args.date;
    const balance = async () =>
      (await store.freezeBalances(sql, [viewer.userId]))[0]?.available ?? 0;
    if (!goal) return { goal: null, freezesLeft: await balance(), errors: noGoal() };
    const problems = freezeErrors(goal, date, today, localDate(goal.createdAt, viewer.timeZone));
    if (problems.length) return { goal: null, freezesLeft: await balance(), errors: problems };
    const refusal = await goneMeanwhile(
      noGoal()[0],
      () =>
        transaction<UserError | null>(sql, async (tx) => {
          if (!(await store.insertFreezeUse(tx, goal, date))) {
            throw new Rollback(
              userError(
                "invalid",
                "date was not missed: it is checked in or already covered",
                "date",
              ),
            );
          }
          if (!(await store.spendFreeze(tx, viewer.userId))) {
            throw new Rollback(userError("no_freezes_left", "no streak freezes left"));
          }
          return null;
        }),
    );
    if (refusal) return { goal: null, freezesLeft: await balance(), errors: [refusal] };
    return { goal, freezesLeft: await balance(), errors: [] };
  }
}
