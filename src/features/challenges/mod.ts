/**
 * Community challenges and points: scores and points follow check-ins and progress events through
 * the domain events `habits.checked_in` and `goals.progress_recorded`, counted by when the
 * activity happened. An activity undone, edited or deleted is taken back or recounted through
 * {@link activityLedger}, inside the transaction that changes it.
 */
import type { Queryable } from "../../platform/db.ts";
import { parseInstant } from "../../platform/dates.ts";
import { type Feature, on } from "../feature.ts";
import type { ActivityLedger } from "../goals/mod.ts";
import {
  activitySource,
  CHECK_IN_POINTS,
  contribution,
  creditedSources,
  endedNotice,
  GOAL_EVENT_POINTS,
  startedNotice,
} from "./rules.ts";
import { type ChallengesDeps, challengesModule } from "./schema.ts";
import {
  announceEnds,
  announceStarts,
  contribute,
  earnPoints,
  takeBackPoints,
  withdrawContributions,
} from "./store.ts";
import { challengesPersonalData } from "./personal-data.ts";

export type { ChallengesDeps };

/**
 * Points and challenge scores of activity undone, edited or deleted (goals' `ActivityLedger`):
 * points are taken back never below a zero balance; contributions change only in challenges that
 * have not ended (an ended challenge's scores are final).
 */
export const activityLedger: ActivityLedger = {
  async withdraw(tx, userId, activities, at) {
    const sources = activities.flatMap(creditedSources);
    await takeBackPoints(tx, userId, sources.map((s) => `earn:${s}`), at);
    await withdrawContributions(tx, userId, sources, at);
  },
  async recount(tx, userId, event, at) {
    const source = activitySource({ kind: "goal_event", eventId: event.eventId });
    await withdrawContributions(tx, userId, [source], at);
    await contribute(tx, userId, "goal_event_value", source, event.value, event.occurredAt, at);
  },
};

export function challengesFeature(deps: ChallengesDeps): Feature {
  const sql = deps.db.sql;

  /**
   * Credits one activity inside `tx`, counted by when it happened: its points once per `source`,
   * and its contribution to the user's running challenges.
   */
  async function credit(
    tx: Queryable,
    userId: string,
    activity: { kind: "check_in" } | { kind: "goal_event"; value: number },
    source: string,
    at: Date,
  ) {
    const [points, metric] = activity.kind === "check_in"
      ? [CHECK_IN_POINTS, "check_ins" as const]
      : [GOAL_EVENT_POINTS, "goal_event_value" as const];
    const amount = contribution(metric, activity);
    await earnPoints(tx, { userId, points, reason: activity.kind, ref: `earn:${source}`, at });
    if (amount !== null && Number.isFinite(amount)) {
      await contribute(tx, userId, metric, source, amount, at);
    }
  }

  return {
    name: "challenges",
    personalData: challengesPersonalData(deps.db.sql),
    graphql: challengesModule(deps),
    subscriptions: [
      // Each credit first locks the activity's row: one undone or deleted before its credit ran
      // is not credited, and one deleted meanwhile waits for the credit and is then taken back.
      on("habits.checked_in", "challenges.check_in", (e) =>
        sql.begin(async (tx) => {
          if (!(await deps.goals.lockCheckIn(tx, e))) return;
          const source = activitySource({ kind: "check_in", ...e });
          const at = parseInstant(e.occurredAt) ?? deps.clock.now();
          await credit(tx, e.userId, { kind: "check_in" }, source, at);
        })),
      // The event's value and time as they are now (it may have been edited since).
      on("goals.progress_recorded", "challenges.goal_event", (e) =>
        sql.begin(async (tx) => {
          const event = await deps.goals.lockGoalEvent(tx, e.eventId);
          if (!event) return;
          const source = activitySource({ kind: "goal_event", eventId: e.eventId });
          await credit(
            tx,
            e.userId,
            { kind: "goal_event", value: event.value },
            source,
            event.occurredAt,
          );
        })),
    ],
    schedules: [{
      name: "challenges.announce",
      cron: "* * * * *",
      run: () => announce(deps),
    }],
    api: {},
  };
}

/**
 * Tells participants that their challenges started and ended (with their rank): each challenge
 * once, marked in the transaction that writes the notifications; a fixed number of statements
 * whatever the number of challenges and participants.
 */
export async function announce(deps: ChallengesDeps): Promise<void> {
  const now = deps.clock.now();
  await deps.db.sql.begin(async (tx) => {
    const started = await announceStarts(tx, now);
    await deps.notifications.notifyMany(
      tx,
      "challenge.started",
      started.map((p) => ({
        userId: p.userId,
        content: startedNotice(p.title),
        key: `challenge.started:${p.challengeId}:${p.userId}`,
      })),
    );
    const ended = await announceEnds(tx, now);
    await deps.notifications.notifyMany(
      tx,
      "challenge.ended",
      ended.map((p) => ({
        userId: p.userId,
        content: endedNotice(p),
        key: `challenge.ended:${p.challengeId}:${p.userId}`,
      })),
    );
  });
}
