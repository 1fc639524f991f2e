/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect; `unreadNotificationCount`, `acknowledgeAllNotifications`
 * and the per-kind `notificationPreferences` / `setNotificationPreference`.
 */
import { viewerField } from "../../graphql/context.ts";
import { forbidden } from "../../graphql/errors.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { Database } from "../../platform/db.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { userError } from "../../platform/user-error.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { JobQueue } from "../feature.ts";
import type { UsersApi } from "../users/mod.ts";
import { publishNotification } from "./notify.ts";
import {
  isNotificationKind,
  NOTIFICATION_KINDS,
  notificationTopic,
  type NotificationView,
  preferencesOf,
} from "./rules.ts";
import {
  acknowledge,
  acknowledgeAll,
  countNotifications,
  disabledKinds,
  listNotifications,
  setPreference,
  toView,
} from "./store.ts";

const typeDefs = /* GraphQL */ `
  "Something a feature told a user; streamed by notificationUpdate."
  type Notification {
    id: ID!
    "What happened, e.g. partner.request. An open set (a String, not an enum): every feature that notifies adds its own kinds, lower case with dots."
    kind: String!
    content: String!
    acknowledged: Boolean!
    createdAt: DateTime!
  }
  ${connectionTypeDefs("Notification")}

  type AcknowledgeNotificationPayload {
    notification: Notification
    errors: [UserError!]!
  }

  type AcknowledgeAllNotificationsPayload {
    "How many unread notifications this call marked read (0 when none was unread)."
    acknowledgedCount: Int!
    errors: [UserError!]!
  }

  "Whether the current user receives one kind of notification (every kind is on until turned off)."
  type NotificationPreference {
    "A Notification.kind, e.g. badge.earned."
    kind: String!
    "What notifications of this kind tell."
    description: String!
    enabled: Boolean!
  }

  type NotificationPreferencePayload {
    preference: NotificationPreference
    errors: [UserError!]!
  }

  extend type Query {
    "The current user's notifications, newest first; acknowledged: false lists the unread ones (totalCount counts them)."
    notifications(acknowledged: Boolean, first: Int, after: String, last: Int, before: String): NotificationConnection!
    "How many of the current user's notifications are unread."
    unreadNotificationCount: Int!
    "Every notification kind with whether the current user receives it."
    notificationPreferences: [NotificationPreference!]!
  }

  extend type Mutation {
    "Marks one of the current user's notifications as read (repeating it changes nothing)."
    acknowledgeNotification(id: String!): AcknowledgeNotificationPayload!
    "Marks every unread notification of the current user as read (repeating it marks none)."
    acknowledgeAllNotifications: AcknowledgeAllNotificationsPayload!
    "Turns one kind of notification on or off for the current user; senders skip a kind turned off."
    setNotificationPreference(kind: String!, enabled: Boolean!): NotificationPreferencePayload!
  }

  extend type Subscription {
    "The user's notifications as they are created or acknowledged; userId defaults to the viewer."
    notificationUpdate(userId: String): Notification!
  }
`;

export interface NotificationsDeps {
  db: Database;
  pubsub: PubSub;
  jobs: JobQueue;
  users: Pick<UsersApi, "usersBySubjects">;
  /** Who receives `artifact.pending_review`: the users of these subjects (ADMIN_SUBJECTS). */
  adminSubjects: readonly string[];
}

export function notificationsModule(deps: NotificationsDeps): GraphQLModule {
  const { db: { sql }, pubsub } = deps;
  return {
    typeDefs,
    resolvers: {
      Query: {
        notifications: viewerField(
          async (viewer, args: PageArgs & { acknowledged?: boolean | null }) => {
            const acknowledged = args.acknowledged ?? null;
            const connection = await paginate(
              args,
              ["string", "string"],
              (window) => listNotifications(sql, viewer.userId, acknowledged, window),
              (r) => [r.createdKey, r.publicId],
              { totalCount: () => countNotifications(sql, viewer.userId, acknowledged) },
            );
            return {
              ...connection,
              edges: connection.edges.map((e) => ({ cursor: e.cursor, node: toView(e.node) })),
              nodes: connection.nodes.map(toView),
            };
          },
        ),
        unreadNotificationCount: viewerField((viewer) =>
          countNotifications(sql, viewer.userId, false)
        ),
        notificationPreferences: viewerField(async (viewer) =>
          preferencesOf(await disabledKinds(sql, viewer.userId))
        ),
      },
      Mutation: {
        acknowledgeNotification: viewerField(async (viewer, args: { id: string }) => {
          const found = looksLikePublicId(args.id)
            ? await acknowledge(sql, viewer.userId, args.id)
            : null;
          if (!found) {
            return {
              notification: null,
              errors: [userError("not_found", "no such notification of yours", "id")],
            };
          }
          if (found.changed) await publishNotification(pubsub, found);
          return { notification: toView(found), errors: [] };
        }),
        acknowledgeAllNotifications: viewerField(async (viewer) => ({
          acknowledgedCount: await acknowledgeAll(sql, viewer.userId),
          errors: [],
        })),
        setNotificationPreference: viewerField(
          async (viewer, args: { kind: string; enabled: boolean }) => {
            if (!isNotificationKind(args.kind)) {
              return {
                preference: null,
                errors: [userError("invalid", "no such notification kind", "kind")],
              };
            }
            await setPreference(sql, viewer.userId, args.kind, args.enabled);
            const preference = {
              kind: args.kind,
              description: NOTIFICATION_KINDS[args.kind],
              enabled: args.enabled,
            };
            return { preference, errors: [] };
          },
        ),
      },
      Subscription: {
        notificationUpdate: {
          subscribe: viewerField(async (viewer, args: { userId?: string | null }) => {
            if (args.userId != null && args.userId !== viewer.publicId) {
              throw forbidden("you may only subscribe to your own notifications");
            }
            return await pubsub.subscribe<NotificationView>(notificationTopic(viewer.userId));
          }),
          resolve: (event: NotificationView) => event,
        },
      },
    },
  };
}
