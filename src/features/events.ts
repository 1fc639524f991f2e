/**
 * The domain events features publish and subscribe to: each name with its payload, in one map.
 * Publishers and subscribers are checked against it (`JobSystem<DomainEvents>`), so a payload
 * never needs a cast and an event name is never a loose string. Payloads are stored as JSON in
 * the transactional outbox: only JSON values, ids as strings, instants as ISO 8601 text.
 *
 * Ids named `userId` are internal user keys (they never reach a client); `goalId`, `eventId`,
 * `badgeId`, `artifactId`, `employeeId`, `moodLogId` and `paymentId` are public ids.
 */
import type { JobSystem } from "../platform/jobs/types.ts";

export type DomainEvents = {
  /** A goal was created (by the user, or from accepted AI milestones). */
  "goals.goal_created": { userId: string; goalId: string; source?: "ai_milestones" };
  /** A goal reached `completed`. */
  "goals.goal_completed": { userId: string; goalId: string };
  /** Progress was recorded on a target; `occurredAt` is when it happened (ISO 8601). */
  "goals.progress_recorded": {
    userId: string;
    goalId: string;
    eventId: string;
    value: number;
    occurredAt: string;
  };
  /**
   * A habit was checked in for the local day `date`; `streak` is the streak after it.
   * `checkInId` (the check-in's public id) is absent from events published before it existed.
   */
  "habits.checked_in": {
    userId: string;
    goalId: string;
    checkInId?: string;
    date: string;
    streak: number;
    occurredAt: string;
  };
  /** `name` (the badge's display name) is absent from events published before it existed. */
  "badges.badge_earned": { userId: string; code: string; badgeId: string; name?: string };
  "mood.logged": { userId: string; moodLogId: string; mood: number };
  /** A payment changed a user's supporter status (billing provider or card path). */
  "billing.payment_processed": PaymentProcessed;
  /** An AI artifact was approved (by an admin or by the employee's autonomy level). */
  "ai_workforce.artifact_approved": { artifactId: string; kind: string; employeeId: string };
  /** A run's artifact was stored waiting for review (not auto-approved, not auto-rejected). */
  "ai_workforce.artifact_pending": { artifactId: string; kind: string; employeeId: string };
};

export interface PaymentProcessed {
  /** Public id of the payment record. */
  paymentId: string;
  provider: string;
  /** The user's public id. */
  userPublicId: string;
  plan: "supporter_monthly" | "supporter_yearly" | "lifetime";
  /**
   * `grant` / `revoke` the plan; `refund`: the lifetime purchase was refunded; `transfer`: the
   * plan moved to this user from `fromUserPublicIds`.
   */
  action: "grant" | "revoke" | "refund" | "transfer";
  /** `transfer` only: the users the plan moved away from. */
  fromUserPublicIds?: string[];
}

export type EventName = keyof DomainEvents;

/** What a feature needs to publish events (inside its own transaction). */
export type EventPublisher = Pick<JobSystem<DomainEvents>, "publish">;
