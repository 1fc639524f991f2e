/**
 * GraphQL for AI coaching: `getInsight`, `getAdvice`, `generateMilestones`, `acceptMilestones`
 * and the admin's `aiFlags` / `setAiFlag`.
 *
 * Each AI operation: the goal must be the viewer's (else `not_found` in `errors`), the `coaching` flag on
 * (else AI_DISABLED), the viewer within the rate limit (else AI_RATE_LIMITED with `retryAfter`
 * seconds), then one validated model call (an invalid answer is asked for once more).
 */
import type { Database, Queryable } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { KvStore } from "../../platform/kv.ts";
import { LlmError, type LlmUsage } from "../../platform/llm.ts";
import { createRateLimiter, type RateLimit } from "../../platform/rate-limit.ts";
import { localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import {
  adminField,
  type GraphQLContext,
  requireViewer,
  type Viewer,
  viewerField,
} from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { codedError } from "../../graphql/errors.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import type { GoalRow, GoalsApi } from "../goals/mod.ts";
import { newGoalErrors } from "../goals/rules.ts";
import type { MoodApi } from "../mood/mod.ts";
import type { Ai } from "./ai.ts";
import {
  adviceAnswer,
  adviceMessages,
  COACHING_LIMIT,
  COACHING_MODEL,
  type CoachingContext,
  insightAnswer,
  insightMessages,
  MILESTONES_LIMIT,
  milestonesAnswer,
  milestonesMessages,
  milestonesProblem,
  milestoneSubGoal,
  QUESTION_MAX,
  RECENT_DAYS,
  RECENT_EVENTS,
  RECENT_MOOD_DAYS,
  RECENT_MOODS,
} from "./rules.ts";
import * as store from "./store.ts";
import type { z } from "zod";

export interface CoachingSchemaDeps {
  db: Database;
  kv: KvStore;
  clock: Clock;
  ai: Ai;
  goals: Pick<GoalsApi, "ownGoal" | "goalById" | "snapshot" | "addSubGoals">;
  mood: Pick<MoodApi, "moodLogsBetween">;
}

const typeDefs = /* GraphQL */ `
  "A milestone the AI coach proposes: a target value on the goal's scale, a date, or both."
  type Milestone {
    title: String!
    targetValue: Float
    "In the user's time zone."
    dueDate: Date
  }

  type GenerateMilestonesPayload {
    "Pass it to acceptMilestones to store the milestones as sub-goals."
    suggestionId: ID
    milestones: [Milestone!]!
    errors: [UserError!]!
  }

  type AcceptMilestonesPayload {
    "The sub-goals created, in the order of the milestones."
    goals: [Goal!]!
    errors: [UserError!]!
  }

  type Insight {
    goalId: ID!
    summary: String!
    highlights: [String!]!
    generatedAt: DateTime!
  }

  type GetInsightPayload {
    insight: Insight
    errors: [UserError!]!
  }

  type Advice {
    goalId: ID!
    question: String!
    answer: String!
    steps: [String!]!
    generatedAt: DateTime!
  }

  type GetAdvicePayload {
    advice: Advice
    errors: [UserError!]!
  }

  "The AI feature flags (spec 7)."
  enum AiFlagName { coaching moderation batch }

  "database: an admin's override. environment: AI_FLAGS."
  enum AiFlagSource { database environment }

  "An AI feature flag as calls see it."
  type AiFlag {
    name: AiFlagName!
    "On for calls: the setting, and an LLM is configured."
    enabled: Boolean!
    "The setting: the admin's override, else AI_FLAGS."
    configured: Boolean!
    source: AiFlagSource!
  }

  type SetAiFlagPayload {
    flag: AiFlag
    errors: [UserError!]!
  }

  extend type Query {
    "Admin: the AI feature flags."
    aiFlags: [AiFlag!]!
  }

  extend type Mutation {
    "AI: an insight into a goal's progress, streaks and recent moods (10 per minute with advice)."
    getInsight(goalId: String!): GetInsightPayload!
    "AI: advice on a question about a goal (1..500 characters)."
    getAdvice(goalId: String!, question: String!): GetAdvicePayload!
    "AI: proposed milestones for a goal (5 per minute); nothing is stored until accepted."
    generateMilestones(goalId: String!): GenerateMilestonesPayload!
    "Stores a suggestion's milestones (all, or those at the given 0-based indexes) as sub-goals."
    acceptMilestones(suggestionId: String!, indexes: [Int!]): AcceptMilestonesPayload!
    "Admin: turns an AI feature flag on or off (overrides AI_FLAGS)."
    setAiFlag(name: AiFlagName!, enabled: Boolean!): SetAiFlagPayload!
  }
`;

type Args = Record<string, unknown>;

const goalNotFound = userError("not_found", "no such goal", "goalId");

export function coachingModule(deps: CoachingSchemaDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const limiter = createRateLimiter({ kv: deps.kv, clock: deps.clock });

  /** The viewer's goal of a public id, or null (someone else's is none). */
  const ownGoal = (viewer: Viewer, id: unknown): Promise<GoalRow | null> =>
    deps.goals.ownGoal(viewer.userId, id);

  /** The viewer's own records about one goal, bounded (spec: no other user's data). */
  async function contextOf(viewer: Viewer, goal: GoalRow): Promise<CoachingContext> {
    const zone = viewer.timeZone;
    const at = now();
    const [snapshot, moods] = await Promise.all([
      deps.goals.snapshot(goal, zone, at, { days: RECENT_DAYS, events: RECENT_EVENTS }),
      deps.mood.moodLogsBetween(
        viewer.userId,
        new Date(at.getTime() - RECENT_MOOD_DAYS * 86_400_000),
        new Date(at.getTime() + 1),
        RECENT_MOODS,
      ),
    ]);
    return {
      today: snapshot.today,
      timeZone: zone,
      goal: {
        title: goal.title,
        description: goal.description,
        kind: goal.kind,
        status: goal.status,
        unit: goal.unit,
        startValue: goal.startValue,
        targetValue: goal.targetValue,
        currentValue: snapshot.currentValue,
        dueDate: goal.dueDate,
        cadence: goal.cadence,
        timesPerWeek: goal.timesPerWeek,
        createdOn: localDate(goal.createdAt, zone),
      },
      streak: snapshot.streak,
      dailyProgress: snapshot.days.map((d) => ({
        day: d.periodStart,
        total: d.sum,
        entries: d.count,
      })),
      recentProgress: snapshot.recentEvents.map((e) => ({
        on: localDate(e.occurredAt, zone),
        value: e.value,
        note: e.note,
      })),
      recentMoods: moods.map((m) => ({
        on: localDate(m.loggedAt, zone),
        mood: m.mood,
        note: m.note,
        tags: m.tags,
      })),
      subGoals: snapshot.subGoals.map((s) => ({ title: s.title, status: s.status })),
    };
  }

  /** Flag, rate limit, one validated model call, and its line in the ledger. */
  async function coach<S extends z.ZodType>(
    ctx: GraphQLContext,
    viewer: Viewer,
    call: {
      category: string;
      limit: RateLimit;
      context: Record<string, unknown>;
      messages: () => Promise<{ role: "system" | "user"; content: string }[]>;
      schema: S;
    },
  ): Promise<z.output<S>> {
    await deps.ai.flags.require("coaching", call.category, call.context, ctx.log);
    const verdict = await limiter.consume(call.limit, viewer.publicId);
    if (!verdict.allowed) {
      ctx.log.info("ai rate limited", {
        category: call.category,
        limit: call.limit.points,
        retry_after: verdict.retryAfterSeconds,
      });
      throw codedError(
        "AI_RATE_LIMITED",
        `too many ${call.category} requests; try again in ${verdict.retryAfterSeconds} s`,
        { retryAfter: verdict.retryAfterSeconds, limit: call.limit.points },
      );
    }
    const record = (outcome: string, usage?: LlmUsage) =>
      store.recordAiCall(sql, {
        userId: viewer.userId,
        feature: call.category,
        model: COACHING_MODEL,
        outcome,
        usage,
      });
    try {
      const result = await deps.ai.llm!.chatJson({
        model: COACHING_MODEL,
        messages: await call.messages(),
        temperature: 0.4,
      }, call.schema);
      await record("ok", result.usage);
      return result.value;
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      await record(err.kind, err.usage);
      ctx.log.warn("ai call failed", {
        category: call.category,
        kind: err.kind,
        error: err.message,
      });
      throw codedError(
        "INTERNAL",
        err.kind === "invalid_output"
          ? "the AI coach gave an answer that could not be used; please try again"
          : "the AI coach is not available right now; please try again later",
        { reason: err.kind === "invalid_output" ? "ai_invalid_output" : "ai_unavailable" },
      );
    }
  }

  const operation = (viewer: Viewer, name: string, goal: GoalRow) => ({
    operation: name,
    user_id: viewer.publicId,
    goal_id: goal.publicId,
  });

  async function acceptMilestones(viewer: Viewer, args: Args) {
    const fail = (errors: UserError[]) => ({ goals: [], errors });
    const invalid = (message: string) => fail([userError("invalid", message, "indexes")]);
    const accepted = () =>
      fail([userError("already_accepted", "these milestones were already accepted")]);
    const id = args.suggestionId;
    const suggestion = typeof id === "string" && looksLikePublicId(id)
      ? await store.ownSuggestion(sql, viewer.userId, id)
      : null;
    if (!suggestion) {
      return fail([userError("not_found", "no such milestone suggestion", "suggestionId")]);
    }
    const all = suggestion.milestones;
    const indexes = (args.indexes as number[] | null | undefined) ?? all.map((_, i) => i);
    if (!indexes.length) return invalid("indexes must name at least one milestone");
    if (new Set(indexes).size !== indexes.length) return invalid("indexes must not repeat");
    if (indexes.some((i) => i < 0 || i >= all.length)) {
      return invalid(`indexes must be between 0 and ${all.length - 1}`);
    }
    if (suggestion.acceptedAt) return accepted();
    const parent = await deps.goals.goalById(suggestion.goalId);
    if (!parent || parent.status === "archived") {
      return fail([userError("not_allowed", "the goal is archived", "suggestionId")]);
    }
    const today = localDate(now(), viewer.timeZone);
    const inputs = indexes.sort((a, b) => a - b).map((i) => milestoneSubGoal(parent, all[i]));
    const problems = inputs.flatMap((input, i) =>
      newGoalErrors(input, today).map((e) =>
        userError("invalid", `milestone ${indexes[i]}: ${e.message}`, "indexes")
      )
    );
    if (problems.length) return fail(problems);
    return await sql.begin(async (tx: Queryable) => {
      if (!(await store.markAccepted(tx, suggestion.id, now()))) {
        return accepted();
      }
      const created = await deps.goals.addSubGoals(tx, parent, inputs, "ai_milestones", now());
      return { goals: created, errors: [] };
    });
  }

  return {
    typeDefs,
    resolvers: {
      Query: {
        aiFlags: adminField(() => {
          return deps.ai.flags.list();
        }),
      },
      Mutation: {
        getInsight: viewerField(async (viewer, args: { goalId: string }, ctx) => {
          const goal = await ownGoal(viewer, args.goalId);
          if (!goal) return { insight: null, errors: [goalNotFound] };
          const answer = await coach(ctx, viewer, {
            category: "insight",
            limit: COACHING_LIMIT,
            context: operation(viewer, "getInsight", goal),
            messages: async () => insightMessages(await contextOf(viewer, goal)),
            schema: insightAnswer,
          });
          return { insight: { goalId: goal.publicId, ...answer, generatedAt: now() }, errors: [] };
        }),
        getAdvice: viewerField(async (viewer, args: { goalId: string; question: string }, ctx) => {
          const goal = await ownGoal(viewer, args.goalId);
          if (!goal) return { advice: null, errors: [goalNotFound] };
          const question = args.question.trim();
          const invalid = (message: string) => ({
            advice: null,
            errors: [userError("invalid", message, "question")],
          });
          if (!question) return invalid("question must not be empty");
          if (question.length > QUESTION_MAX) {
            return invalid(`question must be at most ${QUESTION_MAX} characters`);
          }
          const answer = await coach(ctx, viewer, {
            category: "advice",
            limit: COACHING_LIMIT,
            context: operation(viewer, "getAdvice", goal),
            messages: async () => adviceMessages(await contextOf(viewer, goal), question),
            schema: adviceAnswer,
          });
          return {
            advice: { goalId: goal.publicId, question, ...answer, generatedAt: now() },
            errors: [],
          };
        }),
        generateMilestones: viewerField(async (viewer, args: { goalId: string }, ctx) => {
          const goal = await ownGoal(viewer, args.goalId);
          if (!goal) return { suggestionId: null, milestones: [], errors: [goalNotFound] };
          if (goal.status !== "active") {
            return {
              suggestionId: null,
              milestones: [],
              errors: [userError("not_allowed", `the goal is ${goal.status}`, "goalId")],
            };
          }
          const today = localDate(now(), viewer.timeZone);
          const schema = milestonesAnswer.superRefine((value, issue) => {
            const problem = milestonesProblem(goal, value.milestones, today);
            if (problem) issue.addIssue({ code: "custom", message: problem });
          });
          const { milestones } = await coach(ctx, viewer, {
            category: "milestones",
            limit: MILESTONES_LIMIT,
            context: operation(viewer, "generateMilestones", goal),
            messages: async () => milestonesMessages(await contextOf(viewer, goal)),
            schema,
          });
          const suggestion = await store.insertSuggestion(
            sql,
            viewer.userId,
            goal.id,
            milestones,
            now(),
          );
          return { suggestionId: suggestion.publicId, milestones, errors: [] };
        }),
        acceptMilestones: (_: unknown, args: Args, ctx: GraphQLContext) =>
          acceptMilestones(requireViewer(ctx), args),
        setAiFlag: adminField(async (admin, args: { name: string; enabled: boolean }) => {
          const flag = await deps.ai.flags.set(args.name, args.enabled, admin.userId);
          if (!flag) {
            return {
              flag: null,
              errors: [
                userError("invalid", `unknown AI flag ${JSON.stringify(args.name)}`, "name"),
              ],
            };
          }
          return { flag, errors: [] };
        }),
      },
    },
  };
}
