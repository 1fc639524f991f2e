/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect.
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
import { publishNotification } from "./notify.ts";
import { notificationTopic, type NotificationView } from "./rules.ts";
import {
  acknowledge,
  countNotifications,
  listNotifications,
  ownNotification,
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

  extend type Query {
    "The current user's notifications, newest first; acknowledged: false lists the unread ones (totalCount counts them)."
    notifications(acknowledged: Boolean, first: Int, after: String, last: Int, before: String): NotificationConnection!
  }

  extend type Mutation {
    "Marks one of the current user's notifications as read (repeating it changes nothing)."
    acknowledgeNotification(id: String!): AcknowledgeNotificationPayload!
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
      },
      Mutation: {
        acknowledgeNotification: viewerField(async (viewer, args: { id: string }) => {
          const missing = {
            notification: null,
            errors: [userError("not_found", "no such notification of yours", "id")],
          };
          if (!looksLikePublicId(args.id)) return missing;
          const updated = await acknowledge(sql, viewer.userId, args.id);
          if (updated) {
            await publishNotification(pubsub, updated);
            return { notification: toView(updated), errors: [] };
          }
          const existing = await ownNotification(sql, viewer.userId, args.id);
          if (!existing) return missing;
          return { notification: toView(existing), errors: [] };
        }),
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
