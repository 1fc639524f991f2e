/**
 * Use cases of crediting activity: points and challenge scores of a check-in or progress event,
 * credited in the transaction that records it (goals' {@link ActivityLedger}) and again, as a
 * no-op, by the subscribers of `habits.checked_in` and `goals.progress_recorded`; taking it back
 * when it is undone, edited or deleted; crediting recorded history (`creditPastActivity`).
 */
import type { Queryable } from "../../../platform/db.ts";
import { parseInstant } from "../../../platform/dates.ts";
import type { DomainEvents } from "../../events.ts";
import type { ActivityLedger } from "../../goals/mod.ts";
import {
  activitySource,
  type ChallengesError,
  CHECK_IN_POINTS,
  contribution,
  creditedSources,
  GOAL_EVENT_POINTS,
  type PastActivity,
  pastCredits,
} from "../rules.ts";
import * as store from "../store.ts";
import type { Actor, ChallengesDeps } from "./shared.ts";

/**
 * Points and challenge scores of activity recorded, undone, edited or deleted (goals'
 * `ActivityLedger`): credited once per activity; points are taken back never below a zero
 * balance; contributions change only in challenges that have not ended (an ended challenge's
 * scores are final). Runs inside the caller's transaction.
 */
export const activityLedger: ActivityLedger = {
  async credit(tx, userId, activity) {
    await credit(
      tx,
      userId,
      activity.kind === "check_in"
        ? { kind: "check_in" }
        : { kind: "goal_event", value: activity.value },
      activitySource(activity),
      activity.at,
    );
  },
  async withdraw(tx, userId, activities, at) {
    const sources = activities.flatMap(creditedSources);
    // Scores, then points: the order every writer of both takes them in (joining, leaving,
    // crediting), so no two of them wait for each other.
    await store.withdrawContributions(tx, userId, sources, at);
    await store.takeBackPoints(tx, userId, sources.map((s) => `earn:${s}`), at);
  },
  async recount(tx, userId, event, at) {
    const source = activitySource({ kind: "goal_event", eventId: event.eventId });
    await store.withdrawContributions(tx, userId, [source], at);
    await store.contribute(
      tx,
      userId,
      "goal_event_value",
      source,
      event.value,
      event.occurredAt,
      at,
    );
  },
};

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
  if (amount !== null && Number.isFinite(amount)) {
    await store.contribute(tx, userId, metric, source, amount, at);
  }
  await store.earnPoints(tx, { userId, points, reason: activity.kind, ref: `earn:${source}`, at });
}

// The mutation that records an activity credits it in its own transaction (`activityLedger.credit`),
// so these subscribers find it credited and change nothing (the ledger's `ref` and a
// contribution's `source` are unique). They stay for events published before that, and as the
// one path of an activity recorded without the ledger. Each credit first locks the activity's row:
// one undone or deleted before its credit ran is not credited, and one deleted meanwhile waits for
// the credit and is then taken back.

/** Credits a habit check-in (`habits.checked_in`). */
export async function creditCheckIn(
  deps: ChallengesDeps,
  e: DomainEvents["habits.checked_in"],
): Promise<void> {
  await deps.db.sql.begin(async (tx) => {
    if (!(await deps.goals.lockCheckIn(tx, e))) return;
    const source = activitySource({ kind: "check_in", ...e });
    const at = parseInstant(e.occurredAt) ?? deps.clock.now();
    await credit(tx, e.userId, { kind: "check_in" }, source, at);
  });
}

/** Credits a progress event (`goals.progress_recorded`) by its value and time as they are now. */
export async function creditGoalEvent(
  deps: ChallengesDeps,
  e: DomainEvents["goals.progress_recorded"],
): Promise<void> {
  await deps.db.sql.begin(async (tx) => {
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
  });
}

export interface CreditPastActivityPayload {
  /** Activities whose points were added now (a repeat adds none). */
  credited: number;
  errors: ChallengesError[];
}

/**
 * Credits the actor's recorded history (goals' imports publish no events): each activity's
 * points once, and its contribution to the challenges that were running and joined when it
 * happened, as the live credits count them; one transaction of a fixed number of statements.
 */
export async function creditPastActivity(
  deps: Pick<ChallengesDeps, "db" | "clock">,
  actor: Actor,
  input: { activities: readonly PastActivity[] },
): Promise<CreditPastActivityPayload> {
  const { points, contributions, errors } = pastCredits(input.activities, deps.clock.now());
  if (errors.length) return { credited: 0, errors };
  return await deps.db.sql.begin(async (tx) => {
    const credited = await store.earnPointsMany(tx, actor.userId, points);
    await store.contributeMany(tx, actor.userId, contributions);
    return { credited, errors: [] };
  });
}
