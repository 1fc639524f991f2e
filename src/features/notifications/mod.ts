/**
 * Notifications: what features tell a user (`notify`, `notifyMany`: a kind, the English content,
 * the actor, the subject and the args the content is made of), streamed by `notificationUpdate`
 * on every instance, listed by `notifications`, counted unread, marked read one by one or all at
 * once, switched off per kind (`setNotificationPreference`, which every sender respects since the
 * check is part of the insert), and pushed to the user's registered devices through Web Push,
 * APNs and FCM when configured (docs/notifications.md). The notifications of domain events
 * (badges, artifacts waiting for review) are sent here, by subscribers.
 */
import { type Feature, handles, on } from "../feature.ts";
import { notificationsModule } from "./schema.ts";
import { notificationNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import * as service from "./service.ts";
import type { NotificationsDeps, Notify, NotifyMany, Recipient } from "./service.ts";
import { notificationsPersonalData } from "./personal-data.ts";
import { fanOut, pushJob, pushQueue, pushSendJob, sendToDevice } from "./use-cases/push.ts";

export type { NotificationsDeps, Notify, NotifyMany, Recipient };
export type { PushProviders } from "./use-cases/push.ts";

export interface NotificationsApi {
  /** Stores a notification inside the caller's transaction; broadcast and pushed after it commits. */
  notify: Notify;
  /** Many notifications inside the caller's transaction, in a fixed number of statements. */
  notifyMany: NotifyMany;
}

export function notificationsFeature(
  input: Omit<NotificationsDeps, "push">,
): Feature<NotificationsApi> {
  const deps: NotificationsDeps = { ...input, push: pushQueue(input) };
  return {
    name: "notifications",
    personalData: notificationsPersonalData(deps.db.sql),
    graphql: mergeModules(notificationsModule(deps), notificationNodesModule(deps)),
    jobs: [
      handles(service.broadcastJob, (input) => service.broadcast(deps, input)),
      handles(pushJob, async (input, job) => {
        await fanOut(deps, input, job);
      }),
      handles(pushSendJob, (input, job) => sendToDevice(deps, input, job)),
    ],
    subscriptions: [
      on(
        "badges.badge_earned",
        "notifications.badge_earned",
        (earned) => service.notifyBadgeEarned(deps, earned),
      ),
      on(
        "ai_workforce.artifact_pending",
        "notifications.artifact_pending",
        (pending) => service.notifyArtifactPending(deps, pending),
      ),
    ],
    schedules: [{
      name: "notifications.prune_read",
      cron: "29 * * * *",
      run: async () => void await service.pruneReadNotifications(deps),
    }],
    api: service.createNotifier(deps.jobs, deps.push),
  };
}
