/**
 * Notifications: what features tell a user (`notify`, `notifyMany`), streamed by
 * `notificationUpdate` on every instance, listed by `notifications`, counted unread, marked read
 * one by one or all at once, and switched off per kind (`setNotificationPreference`), which every
 * sender respects since the check is part of the insert. The notifications of domain events
 * (badges, artifacts waiting for review) are sent here, by subscribers.
 */
import { type Feature, handles, on } from "../feature.ts";
import {
  broadcastJob,
  createNotifier,
  type Notify,
  type NotifyMany,
  publishNotification,
} from "./notify.ts";
import { type NotificationsDeps, notificationsModule } from "./schema.ts";
import { notificationsByIds } from "./store.ts";
import { artifactPendingNotice, badgeNotice } from "./rules.ts";
import { notificationsPersonalData } from "./personal-data.ts";

export type { NotificationsDeps, Notify, NotifyMany };

export interface NotificationsApi {
  /** Stores a notification inside the caller's transaction; broadcast after it commits. */
  notify: Notify;
  /** One kind to many users inside the caller's transaction, in a fixed number of statements. */
  notifyMany: NotifyMany;
}

export function notificationsFeature(deps: NotificationsDeps): Feature<NotificationsApi> {
  const sql = deps.db.sql;
  const notifier = createNotifier(deps.jobs);
  return {
    name: "notifications",
    personalData: notificationsPersonalData(deps.db.sql),
    graphql: notificationsModule(deps),
    jobs: [
      handles(broadcastJob, async ({ id, ids }) => {
        const rows = await notificationsByIds(sql, id ? [id] : ids ?? []);
        for (const row of rows) await publishNotification(deps.pubsub, row);
      }),
    ],
    subscriptions: [
      on("badges.badge_earned", "notifications.badge_earned", async (earned) => {
        await sql.begin((tx) =>
          notifier.notify(tx, earned.userId, "badge.earned", badgeNotice(earned), {
            key: `badge.earned:${earned.badgeId}`,
          })
        );
      }),
      on("ai_workforce.artifact_pending", "notifications.artifact_pending", async (pending) => {
        const admins = await deps.users.usersBySubjects(deps.adminSubjects);
        const content = artifactPendingNotice(pending.kind);
        await sql.begin((tx) =>
          notifier.notifyMany(
            tx,
            "artifact.pending_review",
            admins.map((admin) => ({
              userId: admin.id,
              content,
              key: `artifact.pending_review:${pending.artifactId}:${admin.id}`,
            })),
          )
        );
      }),
    ],
    api: notifier,
  };
}
