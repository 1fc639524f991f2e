/**
 * Notifications: what features tell a user (`notify`, `notifyMany`), streamed by
 * `notificationUpdate` on every instance, listed by `notifications`, counted unread, marked read
 * one by one or all at once, and switched off per kind (`setNotificationPreference`), which every
 * sender respects since the check is part of the insert. The notifications of domain events
 * (badges, artifacts waiting for review) are sent here, by subscribers.
 */
import { type Feature, handles, on } from "../feature.ts";
import { notificationsModule } from "./schema.ts";
import * as service from "./service.ts";
import type { NotificationsDeps, Notify, NotifyMany } from "./service.ts";
import { notificationsPersonalData } from "./personal-data.ts";

export type { NotificationsDeps, Notify, NotifyMany };

export interface NotificationsApi {
  /** Stores a notification inside the caller's transaction; broadcast after it commits. */
  notify: Notify;
  /** One kind to many users inside the caller's transaction, in a fixed number of statements. */
  notifyMany: NotifyMany;
}

export function notificationsFeature(deps: NotificationsDeps): Feature<NotificationsApi> {
  return {
    name: "notifications",
    personalData: notificationsPersonalData(deps.db.sql),
    graphql: notificationsModule(deps),
    jobs: [handles(service.broadcastJob, (input) => service.broadcast(deps, input))],
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
    api: service.createNotifier(deps.jobs),
  };
}
