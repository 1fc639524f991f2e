/**
 * GraphQL for goals, habits and progress: `goals`, `goal`, `publicGoal`, `goalProgressData`,
 * `addGoal`, `updateGoal`, `addGoalEvent`, `checkInHabit`, `useStreakFreeze`
 * (`generateMilestones` is AI coaching's, in `src/features/coaching/`). Mutations adapt their
 * arguments to the use cases of `service.ts`; reads load per-goal figures through DataLoaders so
 * a list costs a fixed number of statements.
 */
import type { GraphQLResolveInfo } from "graphql";
import type { Database } from "../../platform/db.ts";
import { localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type GraphQLContext, requireViewer, viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { goalsTypeDefs } from "./typedefs.ts";
import { groupedByKeys, loadByKey } from "../../graphql/loaders.ts";
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
  type GoalChanges,
  type GoalStatus,
  type GroupBy,
  pace,
  paceWindowStart,
  percentComplete,
  progressRange,
} from "./rules.ts";
import * as store from "./store.ts";
import type { GoalRow } from "./store.ts";
import * as service from "./service.ts";
import type { AddGoalEventInput, CheckInInput, GoalsDeps, NewGoalArgs } from "./service.ts";
import { createGoalReads, eventKey, type GoalStats, pageKey, samePage } from "./reads.ts";

/** A goal by internal id through the request's DataLoader (no access check). */
function loadGoal(ctx: GraphQLContext, sql: Database["sql"], id: string) {
  return loadByKey(ctx, "goalById", (ids) => store.goalsByIds(sql, ids), (r) => r.id, id);
}

const iso = (d: Date | null) => d ? d.toISOString() : null;

type Args = Record<string, unknown>;

const currentValueOf = (s: GoalStats | null) => s?.figures.currentValue ?? 0;
const currentStreakOf = (s: GoalStats | null) => s?.currentStreak ?? 0;
const longestStreakOf = (s: GoalStats | null) => s?.longestStreak ?? 0;
const checkedInTodayOf = (s: GoalStats | null) => s?.figures.checkedInToday ?? false;

export function goalsModule(deps: GoalsDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();

  const reads = createGoalReads(deps);
  const { todayIn, stats, withStats, readAheadFor, eventCount } = reads;

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
      reads.readAheadOf(g)?.subGoals ??
        ctx.loader<string, GoalRow[]>("subGoals", async (ids) => {
          return groupedByKeys(ids, await store.subGoalsOf(sql, ids), (r) => r.parentId);
        }).load(g.id),
    /** One statement for the same page of every goal of a request (and one for the counts). */
    events: (g: GoalRow, args: PageArgs, ctx: GraphQLContext) => {
      const ahead = reads.readAheadOf(g)?.events;
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

  return {
    typeDefs: goalsTypeDefs,
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
