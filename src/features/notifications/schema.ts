/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect; `unreadNotificationCount`, `acknowledgeAllNotifications`
 * and the per-kind `notificationPreferences` / `setNotificationPreference`.
 */
import { viewerField } from "../../graphql/context.ts";
import { forbidden } from "../../graphql/errors.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { paginate } from "../../graphql/pagination.ts";
import type {
  MutationResolvers,
  QueryResolvers,
  SubscriptionResolvers,
} from "../../graphql/resolvers.gen.ts";
import { type NOTIFICATIONS_ERROR_CODES, type NotificationView, toView } from "./rules.ts";
import * as service from "./service.ts";
import type { NotificationsDeps } from "./service.ts";

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

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof NOTIFICATIONS_ERROR_CODES[number][]> = {
  acknowledgeNotification: ["not_found"],
  acknowledgeAllNotifications: [],
  setNotificationPreference: ["invalid"],
};

export function notificationsModule(deps: NotificationsDeps): GraphQLModule {
  const Query: QueryResolvers = {
    notifications: viewerField(async (viewer, args) => {
      const acknowledged = args.acknowledged ?? null;
      const connection = await paginate(
        args,
        ["string", "string"],
        (window) => service.listNotifications(deps, viewer, acknowledged, window),
        (r) => [r.createdKey, r.publicId],
        { totalCount: () => service.countNotifications(deps, viewer, acknowledged) },
      );
      return {
        ...connection,
        edges: connection.edges.map((e) => ({ cursor: e.cursor, node: toView(e.node) })),
        nodes: connection.nodes.map(toView),
      };
    }),
    unreadNotificationCount: viewerField((viewer) =>
      service.countNotifications(deps, viewer, false)
    ),
    notificationPreferences: viewerField((viewer) => service.preferences(deps, viewer)),
  };

  const Mutation: MutationResolvers = {
    acknowledgeNotification: viewerField((viewer, args) => service.acknowledge(deps, viewer, args)),
    acknowledgeAllNotifications: viewerField((viewer) => service.acknowledgeAll(deps, viewer)),
    setNotificationPreference: viewerField((viewer, args) =>
      service.setPreference(deps, viewer, args)
    ),
  };

  const Subscription: SubscriptionResolvers = {
    notificationUpdate: {
      subscribe: viewerField((viewer, args) => {
        if (args.userId != null && args.userId !== viewer.publicId) {
          throw forbidden("you may only subscribe to your own notifications");
        }
        return service.updates(deps, viewer);
      }),
      resolve: (event: NotificationView) => event,
    },
  };

  return { typeDefs, errorCodes, resolvers: { Query, Mutation, Subscription } };
}
