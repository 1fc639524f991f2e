/**
 * Notifications: what features tell a user (`notify`), streamed by `notificationUpdate` on every
 * instance and listed by `notifications`.
 */
import { type Feature, handles } from "../feature.ts";
import { broadcastJob, createNotifier, type Notify, publishNotification } from "./notify.ts";
import { type NotificationsDeps, notificationsModule } from "./schema.ts";
import { notificationById } from "./store.ts";
import { notificationsPersonalData } from "./personal-data.ts";

export type { NotificationsDeps, Notify };

export interface NotificationsApi {
  /** Stores a notification inside the caller's transaction; broadcast after it commits. */
  notify: Notify;
}

export function notificationsFeature(deps: NotificationsDeps): Feature<NotificationsApi> {
  return {
    name: "notifications",
    personalData: notificationsPersonalData(deps.db.sql),
    graphql: notificationsModule(deps),
    jobs: [
      handles(broadcastJob, async ({ id }) => {
        const row = await notificationById(deps.db.sql, id);
        if (row) await publishNotification(deps.pubsub, row);
      }),
    ],
    api: { notify: createNotifier(deps.jobs) },
  };
}
