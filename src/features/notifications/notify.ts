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
import { insertNotification, insertNotifications, type NotificationRow, toView } from "./store.ts";

/** Publishes stored notifications to their users' subscribers, after the writer's commit. */
export const broadcastJob = jobKind<{ id?: string; ids?: string[] }>("notifications.broadcast");

/** What a sender may add: `key` makes the notification happen at most once (events, schedules). */
export interface NotifyOptions {
  key?: string;
}

/**
 * Stores a notification for the user (internal id) and broadcasts it after commit; null when the
 * user turned this kind off or `key` was used before (nothing is stored or sent).
 */
export type Notify = (
  tx: Queryable,
  userId: string,
  kind: string,
  content: string,
  options?: NotifyOptions,
) => Promise<NotificationView | null>;

/** One notification kind to many users, in a fixed number of statements; how many were stored. */
export type NotifyMany = (
  tx: Queryable,
  kind: string,
  recipients: readonly { userId: string; content: string; key?: string }[],
) => Promise<number>;

function check(kind: string, content: string) {
  const problem = notificationError(kind, content);
  if (problem) throw new TypeError(`notify: ${problem}`);
}

export function createNotifier(jobs: JobQueue): { notify: Notify; notifyMany: NotifyMany } {
  return {
    notify: async (tx, userId, kind, content, options = {}) => {
      check(kind, content);
      const row = await insertNotification(tx, { userId, kind, content, key: options.key });
      if (!row) return null;
      await jobs.enqueue(tx, broadcastJob, { id: row.id }, {
        key: `notification:${row.id}`,
        maxAttempts: 5,
      });
      return toView(row);
    },
    notifyMany: async (tx, kind, recipients) => {
      for (const r of recipients) check(kind, r.content);
      const ids = await insertNotifications(tx, kind, recipients);
      if (ids.length === 0) return 0;
      await jobs.enqueue(tx, broadcastJob, { ids }, {
        key: `notifications:${ids[0]}:${ids.length}`,
        maxAttempts: 5,
      });
      return ids.length;
    },
  };
}

/** Publishes the current state of a notification to its user's subscribers (any instance). */
export async function publishNotification(pubsub: PubSub, row: NotificationRow): Promise<void> {
  await pubsub.publish(notificationTopic(row.userId), toView(row));
}
