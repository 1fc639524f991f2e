/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect.
 */
import { viewerField } from "../../graphql/context.ts";
import { forbidden, notFound } from "../../graphql/errors.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { Database } from "../../platform/db.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import type { PubSub } from "../../platform/pubsub.ts";
import type { JobQueue } from "../feature.ts";
import { publishNotification } from "./notify.ts";
import { notificationTopic, type NotificationView } from "./rules.ts";
import { acknowledge, listNotifications, ownNotification, toView } from "./store.ts";

const typeDefs = /* GraphQL */ `
  "Something a feature told a user; streamed by notificationUpdate."
  type Notification {
    id: ID!
    "What happened, e.g. partner.request (values are set by the features that notify)."
    kind: String!
    content: String!
    acknowledged: Boolean!
    createdAt: String!
  }

  type NotificationEdge {
    cursor: String!
    node: Notification!
  }

  type NotificationConnection {
    edges: [NotificationEdge!]!
    pageInfo: PageInfo!
  }

  type AcknowledgeNotificationPayload {
    notification: Notification
    errors: [String!]!
  }

  extend type Query {
    "The current user's notifications, newest first."
    notifications(first: Int, after: String): NotificationConnection!
  }

  extend type Mutation {
    "Marks one of the current user's notifications as read (repeating it changes nothing)."
    acknowledgeNotification(id: ID!): AcknowledgeNotificationPayload!
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
        notifications: viewerField(async (viewer, args: PageArgs) => {
          const connection = await paginate(
            args,
            ["string", "string"],
            ({ limit, after }) => listNotifications(sql, viewer.userId, limit, after),
            (r) => [r.createdKey, r.publicId],
          );
          return {
            ...connection,
            edges: connection.edges.map((e) => ({ cursor: e.cursor, node: toView(e.node) })),
          };
        }),
      },
      Mutation: {
        acknowledgeNotification: viewerField(async (viewer, args: { id: string }) => {
          if (!looksLikePublicId(args.id)) throw notFound("notification");
          const updated = await acknowledge(sql, viewer.userId, args.id);
          if (updated) {
            await publishNotification(pubsub, updated);
            return { notification: toView(updated), errors: [] };
          }
          const existing = await ownNotification(sql, viewer.userId, args.id);
          if (!existing) throw notFound("notification");
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
