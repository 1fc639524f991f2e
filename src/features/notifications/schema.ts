/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect.
 */
import type { GraphQLContext } from "../../graphql/context.ts";
import { requireViewer } from "../../graphql/context.ts";
import { forbidden, notFound } from "../../graphql/errors.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { clampFirst, decodeCursor, toConnection } from "../../graphql/pagination.ts";
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
  const sql = deps.db.sql;
  const pubsub = deps.pubsub;
  return {
    typeDefs,
    resolvers: {
      Query: {
        notifications: async (
          _: unknown,
          args: { first?: number | null; after?: string | null },
          ctx: GraphQLContext,
        ) => {
          const viewer = requireViewer(ctx);
          const first = clampFirst(args.first);
          const after = decodeCursor(args.after, 2) as [string, string] | null;
          const rows = await listNotifications(sql, viewer.userId, first + 1, after);
          const connection = toConnection(rows, first, (r) => [r.createdKey, r.publicId]);
          return {
            ...connection,
            edges: connection.edges.map((e) => ({ cursor: e.cursor, node: toView(e.node) })),
          };
        },
      },
      Mutation: {
        acknowledgeNotification: async (_: unknown, args: { id: string }, ctx: GraphQLContext) => {
          const viewer = requireViewer(ctx);
          if (!looksLikePublicId(args.id)) throw notFound("notification");
          const updated = await acknowledge(sql, viewer.userId, args.id);
          if (updated) {
            await publishNotification(pubsub, updated);
            return { notification: toView(updated), errors: [] };
          }
          const existing = await ownNotification(sql, viewer.userId, args.id);
          if (!existing) throw notFound("notification");
          return { notification: toView(existing), errors: [] };
        },
      },
      Subscription: {
        notificationUpdate: {
          subscribe: async (_: unknown, args: { userId?: string | null }, ctx: GraphQLContext) => {
            const viewer = requireViewer(ctx);
            if (args.userId != null && args.userId !== viewer.publicId) {
              throw forbidden("you may only subscribe to your own notifications");
            }
            return await pubsub.subscribe<NotificationView>(notificationTopic(viewer.userId));
          },
          resolve: (event: NotificationView) => event,
        },
      },
    },
  };
}
