/**
 * What the AI operations share: their deps, the actor, the bounded context of a goal sent to the
 * model, and one guarded model call (flag, rate limit, validated answer, its line in the ledger).
 */
import type { Database } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import type { KvStore } from "../../../platform/kv.ts";
import type { Logger } from "../../../platform/log.ts";
import { LlmError, type LlmUsage } from "../../../platform/llm.ts";
import type { RateLimit, RateLimiter } from "../../../platform/rate-limit.ts";
import { localDate } from "../../../platform/dates.ts";
import { codedError } from "../../../graphql/errors.ts";
import type { GoalRow, GoalsApi } from "../../goals/mod.ts";
import type { MoodApi } from "../../mood/mod.ts";
import type { Ai } from "../ai.ts";
import {
  COACHING_MODEL,
  type CoachingContext,
  coachingError,
  RECENT_DAYS,
  RECENT_EVENTS,
  RECENT_MOOD_DAYS,
  RECENT_MOODS,
} from "../rules.ts";
import * as store from "../store.ts";
import type { z } from "zod";

export interface CoachingServiceDeps {
  db: Database;
  kv: KvStore;
  clock: Clock;
  ai: Ai;
  /** The rate limits of the AI operations (one limiter for the feature). */
  limiter: RateLimiter;
  goals: Pick<GoalsApi, "ownGoal" | "goalById" | "snapshot" | "addSubGoals">;
  mood: Pick<MoodApi, "moodLogsBetween">;
}

/** Who asks: the signed-in user, the id logs and limits name them by, their time zone. */
export interface Actor {
  userId: string;
  publicId: string;
  timeZone: string;
}

export const goalNotFound = () => coachingError("not_found", "no such goal", "goalId");

/** The actor's own records about one goal, bounded (spec: no other user's data). */
export async function contextOf(
  deps: CoachingServiceDeps,
  actor: Actor,
  goal: GoalRow,
): Promise<CoachingContext> {
  const zone = actor.timeZone;
  const at = deps.clock.now();
  const [snapshot, moods] = await Promise.all([
    deps.goals.snapshot(goal, zone, at, { days: RECENT_DAYS, events: RECENT_EVENTS }),
    deps.mood.moodLogsBetween(
      actor.userId,
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
export async function coach<S extends z.ZodType>(
  deps: CoachingServiceDeps,
  actor: Actor,
  log: Logger,
  call: {
    category: string;
    limit: RateLimit;
    context: Record<string, unknown>;
    messages: () => Promise<{ role: "system" | "user"; content: string }[]>;
    schema: S;
  },
): Promise<z.output<S>> {
  await deps.ai.flags.require("coaching", call.category, call.context, log);
  const verdict = await deps.limiter.consume(call.limit, actor.publicId);
  if (!verdict.allowed) {
    log.info("ai rate limited", {
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
    store.recordAiCall(deps.db.sql, {
      userId: actor.userId,
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
    log.warn("ai call failed", {
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

export const operation = (actor: Actor, name: string, goal: GoalRow) => ({
  operation: name,
  user_id: actor.publicId,
  goal_id: goal.publicId,
});
