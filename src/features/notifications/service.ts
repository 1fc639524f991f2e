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
import type { JobQueue } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import {
  artifactPendingNotice,
  badgeNotice,
  isNotificationKind,
  noSuchKind,
  noSuchNotification,
  NOTIFICATION_KINDS,
  notificationError,
  type NotificationPreferenceView,
  type NOTIFICATIONS_ERROR_CODES,
  notificationTopic,
  type NotificationView,
  preferencesOf,
  toView,
} from "./rules.ts";
import * as store from "./store.ts";
import type { NotificationRow } from "./store.ts";

export interface NotificationsDeps {
  db: Database;
  pubsub: PubSub;
  jobs: JobQueue;
  users: Pick<UsersApi, "usersBySubjects">;
  /** Who receives `artifact.pending_review`: the users of these subjects (ADMIN_SUBJECTS). */
  adminSubjects: readonly string[];
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

/** A sender's programming error (not a user's): thrown, never answered. */
function check(kind: string, content: string) {
  const problem = notificationError(kind, content);
  if (problem) throw new TypeError(`notify: ${problem}`);
}

export function createNotifier(jobs: JobQueue): { notify: Notify; notifyMany: NotifyMany } {
  return {
    notify: async (tx, userId, kind, content, options = {}) => {
      check(kind, content);
      const row = await store.insertNotification(tx, { userId, kind, content, key: options.key });
      if (!row) return null;
      await jobs.enqueue(tx, broadcastJob, { id: row.id }, {
        key: `notification:${row.id}`,
        maxAttempts: 5,
      });
      return toView(row);
    },
    notifyMany: async (tx, kind, recipients) => {
      for (const r of recipients) check(kind, r.content);
      const ids = await store.insertNotifications(tx, kind, recipients);
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
  deps: Pick<NotificationsDeps, "db" | "jobs">,
  earned: { userId: string; badgeId: string; code: string; name?: string },
): Promise<void> {
  const { notify } = createNotifier(deps.jobs);
  await deps.db.sql.begin((tx) =>
    notify(tx, earned.userId, "badge.earned", badgeNotice(earned), {
      key: `badge.earned:${earned.badgeId}`,
    })
  );
}

/** `artifact.pending_review` to every admin, once per artifact and admin. */
export async function notifyArtifactPending(
  deps: NotificationsDeps,
  pending: { artifactId: string; kind: string },
): Promise<void> {
  const { notifyMany } = createNotifier(deps.jobs);
  const admins = await deps.users.usersBySubjects(deps.adminSubjects);
  const content = artifactPendingNotice(pending.kind);
  await deps.db.sql.begin((tx) =>
    notifyMany(
      tx,
      "artifact.pending_review",
      admins.map((admin) => ({
        userId: admin.id,
        content,
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

/** Turns one kind on or off for the actor. */
export async function setPreference(
  deps: Db,
  actor: Actor,
  input: { kind: string; enabled: boolean },
): Promise<PreferencePayload> {
  if (!isNotificationKind(input.kind)) return { preference: null, errors: [noSuchKind()] };
  await store.setPreference(deps.db.sql, actor.userId, input.kind, input.enabled);
  const preference = {
    kind: input.kind,
    description: NOTIFICATION_KINDS[input.kind],
    enabled: input.enabled,
  };
  return { preference, errors: [] };
}
