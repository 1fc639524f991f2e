/**
 * The notifications use cases: what other features call (`notify`, `notifyMany`: inside the
 * caller's transaction, the broadcast enqueued there too, so it is published to
 * `notificationUpdate` subscribers on every instance only after the transaction commits, and
 * never for a rolled-back one), the notices of domain events, the broadcast job, and the
 * signed-in user's list, acknowledgements and preferences.
 *
 * @example
 * ```ts
 * await sql.begin(async (tx) => {
 *   await tx`update partnerships set ...`;
 *   await deps.notifications.notify(tx, partnerUserId, "partner.request", "Alex asked you");
 * });
 * ```
 */
import type { Database, Queryable } from "../../platform/db.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { jobKind } from "../../platform/jobs/types.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { UserError } from "../../platform/user-error.ts";
import type { PageWindow } from "../../graphql/pagination.ts";
import type { Clock } from "../../platform/clock.ts";
import type { Logger } from "../../platform/log.ts";
import type { FeatureJobs, JobQueue } from "../feature.ts";
import type { PushProviders, PushQueue } from "./use-cases/push.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  artifactPendingMessage,
  badgeEarnedMessage,
  isNotificationKind,
  kindOfEnumValue,
  messageError,
  noSuchKind,
  noSuchNotification,
  NOTIFICATION_KINDS,
  type NotificationMessage,
  type NotificationPreferenceView,
  type NOTIFICATIONS_ERROR_CODES,
  notificationTopic,
  type NotificationView,
  oneKindArgument,
  preferencesOf,
  toView,
} from "./rules.ts";
import * as store from "./store.ts";
import type { NotificationRow } from "./store.ts";
import { type BatchOptions, type BatchResult, pruneOlderThan } from "../../platform/prune.ts";

export interface NotificationsDeps {
  db: Database;
  pubsub: PubSub;
  jobs: Pick<FeatureJobs, "enqueue" | "enqueueMany">;
  clock: Clock;
  log: Logger;
  users: Pick<UsersApi, "usersBySubjects" | "loadUser">;
  /** Who receives `artifact.pending_review`: the users of these subjects (ADMIN_SUBJECTS). */
  adminSubjects: readonly string[];
  /** The push adapters of the configured platforms (none: push is off). */
  providers: PushProviders;
  /** `WEB_PUSH_ALLOWED_HOSTS`. */
  webAllowedHosts: readonly string[];
  /** `WEB_PUSH_VAPID_PUBLIC_KEY`. */
  webPushPublicKey: string | null;
  /** The push queue `notify` uses (from {@link pushQueue}; null: push is off). */
  push: PushQueue | null;
  /** `NOTIFICATIONS_READ_RETENTION_DAYS` (0: read notifications are kept). */
  readRetentionDays: number;
}

/** Who acts: the signed-in user. */
export interface Actor {
  userId: string;
}

type NotificationsError = UserError<typeof NOTIFICATIONS_ERROR_CODES[number]>;

// ---- what other features call ----

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
  message: NotificationMessage,
  options?: NotifyOptions,
) => Promise<NotificationView | null>;

/** One recipient of {@link NotifyMany}. */
export interface Recipient {
  userId: string;
  message: NotificationMessage;
  key?: string;
}

/** Notifications to many users, in a fixed number of statements; how many were stored. */
export type NotifyMany = (tx: Queryable, recipients: readonly Recipient[]) => Promise<number>;

/** A sender's programming error (not a user's): thrown, never answered. */
function check(message: NotificationMessage) {
  const problem = messageError(message);
  if (problem) throw new TypeError(`notify: ${problem}`);
}

/** The row a message makes. */
const newRow = (userId: string, message: NotificationMessage, key?: string) => ({
  userId,
  kind: message.kind,
  content: message.content,
  actorId: message.actorId,
  subjectType: message.subject?.type ?? null,
  subjectId: message.subject?.id ?? null,
  args: message.args as Record<string, unknown>,
  key,
});

/**
 * `notify` and `notifyMany` for features; with `push`, each stored notification is also queued
 * for the recipient's push devices (a job after commit: a push never fails the sender).
 */
export function createNotifier(
  jobs: JobQueue,
  push: PushQueue | null = null,
): { notify: Notify; notifyMany: NotifyMany } {
  return {
    notify: async (tx, userId, message, options = {}) => {
      check(message);
      const row = await store.insertNotification(tx, newRow(userId, message, options.key));
      if (!row) return null;
      await jobs.enqueue(tx, broadcastJob, { id: row.id }, {
        key: `notification:${row.id}`,
        maxAttempts: 5,
      });
      await push?.queue(tx, [row.id]);
      return toView(row);
    },
    notifyMany: async (tx, recipients) => {
      for (const r of recipients) check(r.message);
      const ids = await store.insertNotifications(
        tx,
        recipients.map((r) => newRow(r.userId, r.message, r.key)),
      );
      if (ids.length === 0) return 0;
      await jobs.enqueue(tx, broadcastJob, { ids }, {
        key: `notifications:${ids[0]}:${ids.length}`,
        maxAttempts: 5,
      });
      await push?.queue(tx, ids);
      return ids.length;
    },
  };
}

/** Publishes the current state of a notification to its user's subscribers (any instance). */
async function publish(deps: Pick<NotificationsDeps, "pubsub">, row: NotificationRow) {
  await deps.pubsub.publish(notificationTopic(row.userId), toView(row));
}

/** The `notifications.broadcast` job. */
export async function broadcast(
  deps: Pick<NotificationsDeps, "db" | "pubsub">,
  input: { id?: string; ids?: string[] },
): Promise<void> {
  const rows = await store.notificationsByIds(deps.db.sql, input.id ? [input.id] : input.ids ?? []);
  for (const row of rows) await publish(deps, row);
}

/** `badge.earned`, once per badge. */
export async function notifyBadgeEarned(
  deps: Pick<NotificationsDeps, "db" | "jobs" | "push">,
  earned: { userId: string; badgeId: string; code: string; name?: string },
): Promise<void> {
  const { notify } = createNotifier(deps.jobs, deps.push);
  await deps.db.sql.begin((tx) =>
    notify(tx, earned.userId, badgeEarnedMessage(earned), {
      key: `badge.earned:${earned.badgeId}`,
    })
  );
}

/** `artifact.pending_review` to every admin, once per artifact and admin. */
export async function notifyArtifactPending(
  deps: NotificationsDeps,
  pending: { artifactId: string; kind: string },
): Promise<void> {
  const { notifyMany } = createNotifier(deps.jobs, deps.push);
  const admins = await deps.users.usersBySubjects(deps.adminSubjects);
  const message = artifactPendingMessage(pending);
  await deps.db.sql.begin((tx) =>
    notifyMany(
      tx,
      admins.map((admin) => ({
        userId: admin.id,
        message,
        key: `artifact.pending_review:${pending.artifactId}:${admin.id}`,
      })),
    )
  );
}

// ---- the signed-in user's ----

type Db = Pick<NotificationsDeps, "db">;

export const listNotifications = (
  deps: Db,
  actor: Actor,
  acknowledged: boolean | null,
  window: PageWindow<readonly (string | number)[]>,
) => store.listNotifications(deps.db.sql, actor.userId, acknowledged, window);

export const countNotifications = (deps: Db, actor: Actor, acknowledged: boolean | null) =>
  store.countNotifications(deps.db.sql, actor.userId, acknowledged);

/** One of the actor's notifications by public id; null for another user's, unknown or malformed. */
export async function ownNotification(
  deps: Db,
  actor: Actor,
  id: string,
): Promise<NotificationView | null> {
  const row = looksLikePublicId(id)
    ? await store.ownNotification(deps.db.sql, actor.userId, id)
    : null;
  return row ? toView(row) : null;
}

export const preferences = async (
  deps: Db,
  actor: Actor,
): Promise<NotificationPreferenceView[]> =>
  preferencesOf(await store.disabledKinds(deps.db.sql, actor.userId));

/** The actor's notifications as they are written or acknowledged. */
export const updates = (deps: Pick<NotificationsDeps, "pubsub">, actor: Actor) =>
  deps.pubsub.subscribe<NotificationView>(notificationTopic(actor.userId));

export interface AcknowledgePayload {
  notification: NotificationView | null;
  errors: NotificationsError[];
}

/** Marks one of the actor's notifications read (repeating it changes nothing). */
export async function acknowledge(
  deps: Pick<NotificationsDeps, "db" | "pubsub">,
  actor: Actor,
  input: { id: string },
): Promise<AcknowledgePayload> {
  const found = looksLikePublicId(input.id)
    ? await store.acknowledge(deps.db.sql, actor.userId, input.id)
    : null;
  if (!found) return { notification: null, errors: [noSuchNotification()] };
  if (found.changed) await publish(deps, found);
  return { notification: toView(found), errors: [] };
}

export async function acknowledgeAll(
  deps: Db,
  actor: Actor,
): Promise<{ acknowledgedCount: number; errors: NotificationsError[] }> {
  return { acknowledgedCount: await store.acknowledgeAll(deps.db.sql, actor.userId), errors: [] };
}

export interface PreferencePayload {
  preference: NotificationPreferenceView | null;
  errors: NotificationsError[];
}

/** Turns one kind (given as `kind`, `badge.earned`, or as `type`, `badge_earned`) on or off. */
export async function setPreference(
  deps: Db,
  actor: Actor,
  input: { kind?: string | null; type?: string | null; enabled: boolean },
): Promise<PreferencePayload> {
  const given = (input.kind != null ? 1 : 0) + (input.type != null ? 1 : 0);
  if (given !== 1) return { preference: null, errors: [oneKindArgument()] };
  const kind = input.type != null ? kindOfEnumValue(input.type) : input.kind;
  if (!isNotificationKind(kind)) {
    return { preference: null, errors: [noSuchKind(input.type != null ? "type" : "kind")] };
  }
  await store.setPreference(deps.db.sql, actor.userId, kind, input.enabled);
  const preference = { kind, description: NOTIFICATION_KINDS[kind], enabled: input.enabled };
  return { preference, errors: [] };
}

/**
 * Deletes the read notifications sent more than `NOTIFICATIONS_READ_RETENTION_DAYS` ago, in
 * bounded batches (the schedule's use case); logs how many when any.
 */
export async function pruneReadNotifications(
  deps: Pick<NotificationsDeps, "db" | "clock" | "log" | "readRetentionDays">,
  options: BatchOptions = {},
): Promise<BatchResult> {
  const { before, ...result } = await pruneOlderThan(
    deps.clock.now(),
    deps.readRetentionDays,
    (before, limit) => store.pruneReadBefore(deps.db.sql, before, limit),
    options,
  );
  if (result.rows) {
    deps.log.info("read notifications pruned", { pruned: result.rows, before, more: result.more });
  }
  return result;
}
