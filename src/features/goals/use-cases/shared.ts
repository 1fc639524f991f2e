/** What the goals use cases share: their deps, the actor, the own-goal lookup, common refusals. */
import type { Database, Queryable } from "../../../platform/db.ts";
import type { Clock } from "../../../platform/clock.ts";
import type { Logger } from "../../../platform/log.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { isForeignKeyViolation, unlessViolated } from "../../../platform/db-errors.ts";
import type { EventPublisher } from "../../events.ts";
import type { BadgeEvent, BadgeRow, BadgesApi } from "../../badges/mod.ts";
import type { FeedApi } from "../../feed/mod.ts";
import type { FunnelApi } from "../../funnel/mod.ts";
import type { NotificationsApi } from "../../notifications/mod.ts";
import type { UsersApi } from "../../users/mod.ts";
import type { FeatureJobs } from "../../feature.ts";
import { type ActivityRef, type GoalsError, goalsError, type RecordedActivity } from "../rules.ts";
import * as store from "../store.ts";
import type { GoalRow } from "../store.ts";

/**
 * Points and challenge scores of activities: credited in the transaction that records them (so
 * `me.points` and the scores are current when the mutation answers), taken back or counted again
 * when they change.
 */
export interface ActivityLedger {
  /**
   * Inside the transaction that recorded the activity (after its row was written): credits its
   * points and its contribution to the user's running challenges, once per activity (the domain
   * event's subscriber then finds it credited).
   */
  credit(tx: Queryable, userId: string, activity: RecordedActivity): Promise<void>;
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
  /** Points and challenge scores of activity recorded, undone, edited or deleted. */
  activity: ActivityLedger;
  /** Sends `streak.at_risk` (the hourly `goals.streak_at_risk` schedule). */
  notifications: Pick<NotificationsApi, "notifyMany">;
  /** Queues the batches of the streak reminder. */
  jobs: Pick<FeatureJobs, "enqueue">;
  /** Users per batch of the streak reminder (`FAN_OUT_BATCH_SIZE`). */
  fanOutBatchSize: number;
}

/** Who acts: the signed-in user and the time zone their days follow. */
export interface Actor {
  userId: string;
  timeZone: string;
}

/** The actor's goal of `id`, or null (another user's goal, an unknown or malformed id). */
export async function ownGoal(
  deps: Pick<GoalsDeps, "db">,
  actor: Pick<Actor, "userId">,
  id: unknown,
): Promise<GoalRow | null> {
  return typeof id === "string" && looksLikePublicId(id)
    ? await store.ownGoal(deps.db.sql, actor.userId, id)
    : null;
}

/** The `not_found` error of a mutation's `goalId`. */
export const noGoal =
  (): GoalsError[] => [goalsError("not_found", "no such goal of yours", "goalId")];
export const parentGone = (): GoalsError[] => [
  goalsError("not_found", "parentGoalId does not name one of your goals", "parentGoalId"),
];

/** A write naming a goal deleted meanwhile (its foreign key refuses it) answers `refusal`. */
export const goneMeanwhile = <T, O>(refusal: O, work: () => Promise<T>) =>
  unlessViolated(isForeignKeyViolation, refusal, work);

export const award = (
  deps: GoalsDeps,
  tx: Queryable,
  userId: string,
  event: BadgeEvent,
): Promise<BadgeRow[]> => deps.badges.awardFor(tx, userId, event, deps.clock.now());
