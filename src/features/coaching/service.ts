/**
 * The AI coaching use cases, each `(deps, actor, input) => Promise<payload>`: insights, advice,
 * milestones and accepting them, the AI flags. Each AI operation: the goal must be the actor's
 * (else `not_found` in `errors`), the `coaching` flag on (else AI_DISABLED), the actor within the
 * rate limit (else AI_RATE_LIMITED with `retryAfter` seconds), then one validated model call (an
 * invalid answer is asked for once more). The only coaching code that opens transactions and
 * calls the goals and mood features.
 */
import { type IdempotencyInput, retrySafe } from "../../platform/idempotency.ts";
import type { Logger } from "../../platform/log.ts";
import { localDate } from "../../platform/dates.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { GoalRow } from "../goals/mod.ts";
import { newGoalErrors } from "../goals/rules.ts";
import type { FlagState } from "./ai.ts";
import type { RateLimit } from "../../platform/rate-limit.ts";
import { dependencyFailure } from "../../platform/dependency.ts";
import {
  adviceAnswer,
  adviceMessages,
  type AiFeatureAvailability,
  aiFeatureAvailability,
  COACHING_LIMIT,
  type CoachingError,
  coachingError,
  insightAnswer,
  insightMessages,
  type Milestone,
  MILESTONES_LIMIT,
  milestonesAnswer,
  milestonesMessages,
  milestonesProblem,
  milestoneSubGoal,
  QUESTION_MAX,
} from "./rules.ts";
import * as store from "./store.ts";
import {
  type Actor,
  coach,
  type CoachingServiceDeps,
  contextOf,
  goalNotFound,
  operation,
} from "./use-cases/coach.ts";

export type { Actor, CoachingServiceDeps };

export interface GetInsightPayload {
  insight: {
    goalId: string;
    summary: string;
    highlights: string[];
    generatedAt: Date;
  } | null;
  errors: CoachingError[];
}

export async function getInsight(
  deps: CoachingServiceDeps,
  actor: Actor,
  input: { goalId: string } & IdempotencyInput,
  log: Logger,
): Promise<GetInsightPayload> {
  const refused = (errors: CoachingError[]): GetInsightPayload => ({ insight: null, errors });
  const retry = await retrySafe(deps, "getInsight", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  const goal = await deps.goals.ownGoal(actor.userId, input.goalId);
  if (!goal) return refused([goalNotFound()]);
  // Held before the model is asked: a concurrent retry waits for this answer, spending nothing.
  return await retry.held(async () => {
    const answer = await coach(deps, actor, log, {
      category: "insight",
      limit: COACHING_LIMIT,
      context: operation(actor, "getInsight", goal),
      messages: async () => insightMessages(await contextOf(deps, actor, goal)),
      schema: insightAnswer,
    });
    return {
      insight: { goalId: goal.publicId, ...answer, generatedAt: deps.clock.now() },
      errors: [],
    };
  });
}

export interface GetAdvicePayload {
  advice: {
    goalId: string;
    question: string;
    answer: string;
    steps: string[];
    generatedAt: Date;
  } | null;
  errors: CoachingError[];
}

export async function getAdvice(
  deps: CoachingServiceDeps,
  actor: Actor,
  input: { goalId: string; question: string } & IdempotencyInput,
  log: Logger,
): Promise<GetAdvicePayload> {
  const refused = (errors: CoachingError[]): GetAdvicePayload => ({ advice: null, errors });
  const retry = await retrySafe(deps, "getAdvice", actor.userId, input, (e) => refused([e]));
  if (retry.earlier) return retry.earlier;
  const goal = await deps.goals.ownGoal(actor.userId, input.goalId);
  if (!goal) return refused([goalNotFound()]);
  const question = input.question.trim();
  const invalid = (message: string) => refused([coachingError("invalid", message, "question")]);
  if (!question) return invalid("question must not be empty");
  if (question.length > QUESTION_MAX) {
    return invalid(`question must be at most ${QUESTION_MAX} characters`);
  }
  return await retry.held(async () => {
    const answer = await coach(deps, actor, log, {
      category: "advice",
      limit: COACHING_LIMIT,
      context: operation(actor, "getAdvice", goal),
      messages: async () => adviceMessages(await contextOf(deps, actor, goal), question),
      schema: adviceAnswer,
    });
    return {
      advice: { goalId: goal.publicId, question, ...answer, generatedAt: deps.clock.now() },
      errors: [],
    };
  });
}

export interface GenerateMilestonesPayload {
  suggestionId: string | null;
  milestones: Milestone[];
  errors: CoachingError[];
}

export async function generateMilestones(
  deps: CoachingServiceDeps,
  actor: Actor,
  input: { goalId: string } & IdempotencyInput,
  log: Logger,
): Promise<GenerateMilestonesPayload> {
  const now = () => deps.clock.now();
  const refused = (errors: CoachingError[]): GenerateMilestonesPayload => ({
    suggestionId: null,
    milestones: [],
    errors,
  });
  const retry = await retrySafe(
    deps,
    "generateMilestones",
    actor.userId,
    input,
    (e) => refused([e]),
  );
  if (retry.earlier) return retry.earlier;
  const goal = await deps.goals.ownGoal(actor.userId, input.goalId);
  if (!goal) return refused([goalNotFound()]);
  if (goal.status !== "active") {
    return refused([coachingError("not_allowed", `the goal is ${goal.status}`, "goalId")]);
  }
  const today = localDate(now(), actor.timeZone);
  const schema = milestonesAnswer.superRefine((value, issue) => {
    const problem = milestonesProblem(goal, value.milestones, today);
    if (problem) issue.addIssue({ code: "custom", message: problem });
  });
  // Held before the model is asked; the suggestion and the answer are stored together.
  return await retry.held(async (transaction) => {
    const { milestones } = await coach(deps, actor, log, {
      category: "milestones",
      limit: MILESTONES_LIMIT,
      context: operation(actor, "generateMilestones", goal),
      messages: async () => milestonesMessages(await contextOf(deps, actor, goal)),
      schema,
    });
    return await transaction(async (tx) => {
      const suggestion = await store.insertSuggestion(tx, actor.userId, goal.id, milestones, now());
      return { suggestionId: suggestion.publicId, milestones, errors: [] };
    });
  });
}

export interface AcceptMilestonesPayload {
  goals: GoalRow[];
  errors: CoachingError[];
}

export async function acceptMilestones(
  deps: CoachingServiceDeps,
  actor: Actor,
  input: { suggestionId: string; indexes?: number[] | null } & IdempotencyInput,
): Promise<AcceptMilestonesPayload> {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();
  const fail = (errors: CoachingError[]): AcceptMilestonesPayload => ({ goals: [], errors });
  const retry = await retrySafe(deps, "acceptMilestones", actor.userId, input, (e) => fail([e]));
  if (retry.earlier) return retry.earlier;
  const invalid = (message: string) => fail([coachingError("invalid", message, "indexes")]);
  const accepted = () =>
    fail([coachingError("already_accepted", "these milestones were already accepted")]);
  const id = input.suggestionId;
  const suggestion = typeof id === "string" && looksLikePublicId(id)
    ? await store.ownSuggestion(sql, actor.userId, id)
    : null;
  if (!suggestion) {
    return fail([coachingError("not_found", "no such milestone suggestion", "suggestionId")]);
  }
  const all = suggestion.milestones;
  const indexes = [...input.indexes ?? all.map((_, i) => i)];
  if (!indexes.length) return invalid("indexes must name at least one milestone");
  if (new Set(indexes).size !== indexes.length) return invalid("indexes must not repeat");
  if (indexes.some((i) => i < 0 || i >= all.length)) {
    return invalid(`indexes must be between 0 and ${all.length - 1}`);
  }
  if (suggestion.acceptedAt) return accepted();
  const parent = await deps.goals.goalById(suggestion.goalId);
  if (!parent || parent.status === "archived") {
    return fail([coachingError("not_allowed", "the goal is archived", "suggestionId")]);
  }
  const today = localDate(now(), actor.timeZone);
  const inputs = indexes.sort((a, b) => a - b).map((i) => milestoneSubGoal(parent, all[i]));
  const problems = inputs.flatMap((input, i) =>
    newGoalErrors(input, today).map((e) =>
      coachingError("invalid", `milestone ${indexes[i]}: ${e.message}`, "indexes")
    )
  );
  if (problems.length) return fail(problems);
  return await retry.refusableTransaction(async (tx): Promise<AcceptMilestonesPayload> => {
    if (!(await store.markAccepted(tx, suggestion.id, now()))) return accepted();
    const created = await deps.goals.addSubGoals(tx, parent, inputs, "ai_milestones", now());
    return { goals: created, errors: [] };
  });
}

export interface AiAvailability {
  coaching: AiFeatureAvailability;
  milestones: AiFeatureAvailability;
  moderation: AiFeatureAvailability;
}

/**
 * Which AI features the actor may use now: the flags as calls see them and the actor's rate
 * limits, read without counting a call. A store that is down leaves the limits unknown (the flag
 * still answers), so the query never fails for it.
 */
export async function aiAvailability(
  deps: Pick<CoachingServiceDeps, "ai" | "limiter">,
  actor: Pick<Actor, "publicId">,
): Promise<AiAvailability> {
  const flags = new Map((await deps.ai.flags.list()).map((f) => [f.name, f.configured]));
  const llmConfigured = deps.ai.llm !== null;
  const state = (flag: string) => ({ llmConfigured, flagOn: flags.get(flag) === true });
  const rate = async (limit: RateLimit) => {
    try {
      return await deps.limiter.peek(limit, actor.publicId);
    } catch (err) {
      if (!dependencyFailure(err)) throw err;
      return null;
    }
  };
  const [coaching, milestones] = await Promise.all([rate(COACHING_LIMIT), rate(MILESTONES_LIMIT)]);
  return {
    coaching: aiFeatureAvailability(state("coaching"), coaching),
    milestones: aiFeatureAvailability(state("coaching"), milestones),
    moderation: aiFeatureAvailability(state("moderation"), null),
  };
}

/** The AI feature flags as calls see them. */
export const aiFlags = (deps: Pick<CoachingServiceDeps, "ai">): Promise<FlagState[]> =>
  deps.ai.flags.list();

/** An admin turns an AI flag on or off (overriding AI_FLAGS). */
export async function setAiFlag(
  deps: Pick<CoachingServiceDeps, "ai">,
  admin: { userId: string },
  input: { name: string; enabled: boolean },
): Promise<{ flag: FlagState | null; errors: CoachingError[] }> {
  const flag = await deps.ai.flags.set(input.name, input.enabled, admin.userId);
  if (!flag) {
    return {
      flag: null,
      errors: [coachingError("invalid", `unknown AI flag ${JSON.stringify(input.name)}`, "name")],
    };
  }
  return { flag, errors: [] };
}
