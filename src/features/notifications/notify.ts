/**
 * The seam other features call: `notify(tx, userId, kind, content)` stores a notification inside
 * the caller's transaction and enqueues its broadcast there too, so it is published (to
 * `notificationUpdate` subscribers on every instance) only after the transaction commits, and
 * never for a rolled-back one.
 *
 * @example
 * ```ts
 * await sql.begin(async (tx) => {
 *   await tx`update partnerships set ...`;
 *   await deps.notifications.notify(tx, partnerUserId, "partner.request", "Alex asked you");
 * });
 * ```
 */
import type { Queryable } from "../../platform/db.ts";
import { jobKind } from "../../platform/jobs/types.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { JobQueue } from "../feature.ts";
import { notificationError, notificationTopic, type NotificationView } from "./rules.ts";
import { insertNotification, type NotificationRow, toView } from "./store.ts";

/** Publishes one stored notification to its user's subscribers, after the writer's commit. */
export const broadcastJob = jobKind<{ id: string }>("notifications.broadcast");

/** Stores a notification for the user (internal id) and broadcasts it after commit. */
export type Notify = (
  tx: Queryable,
  userId: string,
  kind: string,
  content: string,
) => Promise<NotificationView>;

export function createNotifier(jobs: JobQueue): Notify {
  return async (tx, userId, kind, content) => {
    const problem = notificationError(kind, content);
    if (problem) throw new TypeError(`notify: ${problem}`);
    const row = await insertNotification(tx, { userId, kind, content });
    await jobs.enqueue(tx, broadcastJob, { id: row.id }, {
      key: `notification:${row.id}`,
      maxAttempts: 5,
    });
    return toView(row);
  };
}

/** Publishes the current state of a notification to its user's subscribers (any instance). */
export async function publishNotification(pubsub: PubSub, row: NotificationRow): Promise<void> {
  await pubsub.publish(notificationTopic(row.userId), toView(row));
}
