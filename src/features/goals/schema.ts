/**
 * GraphQL for goals, habits and progress: `goals`, `goal`, `publicGoal`, `goalProgressData`,
 * `addGoal`, `updateGoal`, `addGoalEvent`, `checkInHabit`, `useStreakFreeze`
 * (`generateMilestones` is AI coaching's, in `src/features/coaching/`). Mutations adapt their
 * arguments to the use cases of `service.ts`; reads load per-goal figures through DataLoaders so
 * a list costs a fixed number of statements.
 */
import { type GraphQLContext, requireViewer, viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type {
  CheckInActivityResolvers,
  CheckInResolvers,
  CurrentUserResolvers,
  GoalCompletedActivityResolvers,
  GoalEventActivityResolvers,
  GoalEventResolvers,
  GoalResolvers,
  MutationResolvers,
  PublicGoalResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import { goalsTypeDefs } from "./typedefs.ts";
import { groupedByKeys, loadByKey } from "../../graphql/loaders.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { connectionItemFields } from "../../graphql/selection.ts";
import { type Connection, pageWindow, toConnection } from "../../graphql/pagination.ts";
import { type GoalsErrorCode, percentComplete } from "./rules.ts";
import * as service from "./service.ts";
import type { GoalEventRow, GoalRow, GoalsDeps } from "./service.ts";
import { createGoalReads, eventKey, type GoalStats, pageKey, samePage } from "./reads.ts";

/** A goal by internal id through the request's DataLoader (no access check). */
function loadGoal(ctx: GraphQLContext, deps: Pick<GoalsDeps, "db">, id: string) {
  return loadByKey(ctx, "goalById", (ids) => service.goalsByIds(deps, ids), (r) => r.id, id);
}

const iso = (d: Date | null) => d ? d.toISOString() : null;

const currentValueOf = (s: GoalStats | null) => s?.figures.currentValue ?? 0;
const currentStreakOf = (s: GoalStats | null) => s?.currentStreak ?? 0;
const longestStreakOf = (s: GoalStats | null) => s?.longestStreak ?? 0;
const checkedInTodayOf = (s: GoalStats | null) => s?.figures.checkedInToday ?? false;

export function goalsModule(deps: GoalsDeps): GraphQLModule {
  const reads = createGoalReads(deps);
  const { todayIn, stats, withStats, readAheadFor, eventCount } = reads;

  /** A feed activity's goal, when it is the viewer's own. */
  const goalOf = async (a: { goalId?: unknown }, _: unknown, ctx: GraphQLContext) => {
    if (typeof a.goalId !== "string") return null;
    const goal = await loadGoal(ctx, deps, a.goalId);
    return goal && goal.userId === ctx.viewer?.userId ? goal : null;
  };

  const goalFields = {
    id: (g: GoalRow) => g.publicId,
    completedAt: (g: GoalRow) => iso(g.completedAt),
    createdAt: (g: GoalRow) => g.createdAt.toISOString(),
    currentValue: (g: GoalRow, _: unknown, ctx: GraphQLContext) =>
      withStats(g, ctx, currentValueOf),
    percentComplete: (g: GoalRow, _: unknown, ctx: GraphQLContext) =>
      withStats(g, ctx, (s) => percentComplete(g, currentValueOf(s))),
    currentStreak: (g: GoalRow, _: unknown, ctx: GraphQLContext) =>
      withStats(g, ctx, currentStreakOf),
  };

  const Goal: GoalResolvers = {
    ...goalFields,
    updatedAt: (g: GoalRow) => g.updatedAt.toISOString(),
    longestStreak: (g: GoalRow, _, ctx) => withStats(g, ctx, longestStreakOf),
    checkedInToday: (g: GoalRow, _, ctx) => withStats(g, ctx, checkedInTodayOf),
    parent: (g: GoalRow, _, ctx) => g.parentId ? loadGoal(ctx, deps, g.parentId) : null,
    subGoals: (g: GoalRow, _, ctx) =>
      reads.readAheadOf(g)?.subGoals ??
        ctx.loader<string, GoalRow[]>("subGoals", async (ids) => {
          return groupedByKeys(ids, await service.subGoalsOf(deps, ids), (r) => r.parentId);
        }).load(g.id),
    /** One statement for the same page of every goal of a request (and one for the counts). */
    events: (g: GoalRow, args, ctx) => {
      const ahead = reads.readAheadOf(g)?.events;
      if (ahead && samePage(ahead.args, args)) return ahead.connection;
      const key = pageKey(args);
      const window = pageWindow(args, ["timestamp", "publicId"]);
      return ctx.loader<string, Connection<GoalEventRow>>(
        `goalEvents:${key}`,
        async (ids) => {
          const groups = groupedByKeys(
            ids,
            await service.goalEventsOf(deps, ids, window),
            (r) => r.goalId,
          );
          return ids.map((id, i) => toConnection(groups[i], window, eventKey, eventCount(ctx, id)));
        },
      ).load(g.id);
    },
  };

  const PublicGoal: PublicGoalResolvers = {
    ...goalFields,
    owner: (g: GoalRow, _, ctx) => deps.users.loadUser(ctx, g.userId),
  };

  const GoalEvent: GoalEventResolvers = {
    id: (e: GoalEventRow) => e.publicId,
    occurredAt: (e: GoalEventRow) => e.occurredAt.toISOString(),
    createdAt: (e: GoalEventRow) => e.createdAt.toISOString(),
  };

  const CheckIn: CheckInResolvers = {
    id: (c: { publicId: string }) => c.publicId,
    date: (c: { day: string }) => c.day,
    createdAt: (c: { createdAt: Date }) => c.createdAt.toISOString(),
  };

  const CurrentUser: CurrentUserResolvers = {
    streakFreezes: async (u: { id: string }, _, ctx) =>
      (await loadByKey(
        ctx,
        "freezeBalance",
        (ids) => service.freezeBalances(deps, ids),
        (r) => r.userId,
        u.id,
      ))?.available ?? 0,
  };

  const GoalEventActivity: GoalEventActivityResolvers = { goal: goalOf };
  const CheckInActivity: CheckInActivityResolvers = {
    goal: goalOf,
    streak: (a: { streak?: number }) => a.streak ?? 0,
  };
  const GoalCompletedActivity: GoalCompletedActivityResolvers = { goal: goalOf };

  const Query: QueryResolvers = {
    goals: async (_, args, ctx, info) => {
      const viewer = requireViewer(ctx);
      const fields = connectionItemFields(info);
      const { connection, subGoals } = await service.listGoals(
        deps,
        viewer,
        args,
        fields.has("subGoals"),
      );
      await readAheadFor(connection.nodes, subGoals, fields, ctx, info);
      return connection;
    },
    goal: (_, args, ctx) => service.ownGoal(deps, requireViewer(ctx), args.id),
    publicGoal: (_, args) => service.publicGoal(deps, args.id),
    goalProgressData: viewerField(async (viewer, args, ctx) => {
      const data = await service.goalProgressData(deps, viewer, args, {
        today: todayIn(ctx, viewer.timeZone),
        stats: (goal) => stats(goal, ctx),
      });
      if (data && "invalid" in data) throw badUserInput(data.invalid);
      return data;
    }),
  };

  const Mutation: MutationResolvers = {
    addGoal: (_, args, ctx) => service.addGoal(deps, requireViewer(ctx), args),
    updateGoal: (_, args, ctx) => service.updateGoal(deps, requireViewer(ctx), args),
    addGoalEvent: (_, args, ctx) => service.addGoalEvent(deps, requireViewer(ctx), args),
    checkInHabit: (_, args, ctx) => service.checkInHabit(deps, requireViewer(ctx), args),
    useStreakFreeze: (_, args, ctx) => service.useStreakFreeze(deps, requireViewer(ctx), args),
  };

  return {
    typeDefs: goalsTypeDefs,
    publicFields: ["publicGoal"],
    errorCodes: {
      addGoal: ["invalid", "not_found", "idempotency_key_reused"],
      updateGoal: ["invalid", "not_found", "conflict"],
      addGoalEvent: ["invalid", "not_found", "not_allowed", "idempotency_key_reused"],
      checkInHabit: ["invalid", "not_found", "not_allowed"],
      useStreakFreeze: ["invalid", "not_found", "not_allowed", "no_freezes_left"],
    } satisfies { [M in keyof MutationResolvers]?: GoalsErrorCode[] },
    lookups: { Goal: (id, ctx) => service.ownGoal(deps, requireViewer(ctx), id) },
    resolvers: {
      Goal,
      PublicGoal,
      GoalEventActivity,
      CheckInActivity,
      GoalCompletedActivity,
      GoalEvent,
      CheckIn,
      CurrentUser,
      Query,
      Mutation,
    },
  };
}
