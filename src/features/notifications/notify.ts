/**
 * The seam other features call: `notify(tx, userId, kind, content)` stores a notification inside
 * the caller's transaction and enqueues its broadcast there too, so it is published (to
 * `notificationUpdate` subscribers on every instance) only after the transaction commits, and
 * never for a rolled-back one.
 *
 * @example
 * ```ts
 * const notify = createNotifier(deps); // deps: FeatureDeps
 * await sql.begin(async (tx) => {
 *   await tx`update partnerships set ...`;
 *   await notify(tx, partnerUserId, "partner.request", "Alex asked you to be partners");
 * });
 * ```
 */
import type { Queryable } from "../../platform/db.ts";
import type { JobSystem } from "../../platform/jobs/types.ts";
import type { KvStore } from "../../platform/kv.ts";
import type { Database } from "../../platform/db.ts";
import { createPubSub } from "../../platform/pubsub.ts";
import { notificationError, notificationTopic, type NotificationView } from "./rules.ts";
import { insertNotification, notificationById, type NotificationRow, toView } from "./store.ts";

export const BROADCAST_JOB = "notifications.broadcast";

/** Stores a notification for the user (internal id) and broadcasts it after commit. */
export type Notify = (
  tx: Queryable,
  userId: string,
  kind: string,
  content: string,
) => Promise<NotificationView>;

export function createNotifier(deps: { jobs: JobSystem }): Notify {
  return async (tx, userId, kind, content) => {
    const problem = notificationError(kind, content);
    if (problem) throw new TypeError(`notify: ${problem}`);
    const row = await insertNotification(tx, { userId, kind, content });
    await deps.jobs.enqueue(tx, BROADCAST_JOB, { id: row.id }, {
      key: `notification:${row.id}`,
      maxAttempts: 5,
    });
    return toView(row);
  };
}

/** Publishes the current state of a notification to its user's subscribers (any instance). */
export async function publishNotification(kv: KvStore, row: NotificationRow): Promise<void> {
  await createPubSub(kv).publish(notificationTopic(row.userId), toView(row));
}

/** Registers the broadcast job's handler (once per app). */
export function registerNotificationJobs(
  deps: { jobs: JobSystem; db: Database; kv: KvStore },
): void {
  deps.jobs.handle(BROADCAST_JOB, async (payload) => {
    const { id } = payload as { id: string };
    const row = await notificationById(deps.db.sql, id);
    if (row) await publishNotification(deps.kv, row);
  });
}
