/**
 * GraphQL for notifications: `notificationUpdate(userId)` streams a user's notifications as they
 * are written or acknowledged; `notifications(first, after)` and `acknowledgeNotification(id)` let
 * a client catch up after a reconnect; `unreadNotificationCount`, `acknowledgeAllNotifications`
 * and the per-kind `notificationPreferences` / `setNotificationPreference`. A notification's
 * `subject` is fetched through the owning feature's lookup (src/graphql/lookups.ts). Push devices:
 * `registerPushDevice`, `unregisterPushDevice`, `pushDevices`, `pushConfiguration`.
 */
import { type GraphQLContext, requireViewer, viewerField } from "../../graphql/context.ts";
import { forbidden } from "../../graphql/errors.ts";
import { lookUp } from "../../graphql/lookups.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { paginate } from "../../graphql/pagination.ts";
import type {
  MutationResolvers,
  NotificationKind,
  NotificationPreferenceResolvers,
  NotificationResolvers,
  NotificationSubjectResolvers,
  PushDeviceResolvers,
  QueryResolvers,
  SubscriptionResolvers,
} from "../../graphql/resolvers.gen.ts";
import {
  kindEnumValue,
  type NOTIFICATIONS_ERROR_CODES,
  type NotificationView,
  SUBJECT_TYPES,
  toView,
} from "./rules.ts";
import * as service from "./service.ts";
import type { NotificationsDeps } from "./service.ts";
import * as devices from "./use-cases/devices.ts";
import type { DeviceRow } from "./use-cases/devices.ts";
import { notificationsTypeDefs } from "./typedefs.ts";

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof NOTIFICATIONS_ERROR_CODES[number][]> = {
  acknowledgeNotification: ["not_found"],
  acknowledgeAllNotifications: [],
  setNotificationPreference: ["invalid"],
  registerPushDevice: ["invalid", "push_disabled"],
  unregisterPushDevice: ["not_found"],
};

/** The GraphQL type of each subject a lookup returned (for the union's `__resolveType`). */
const subjectTypeNames = new WeakMap<object, string>();

export function notificationsModule(deps: NotificationsDeps): GraphQLModule {
  const Notification: NotificationResolvers = {
    type: (n: NotificationView) => kindEnumValue(n.kind) as NotificationKind,
    actor: (n: NotificationView, _, ctx) => n.actorId ? deps.users.loadUser(ctx, n.actorId) : null,
    subject: async (n: NotificationView, _, ctx: GraphQLContext, info) => {
      if (!n.subjectType || !n.subjectId) return null;
      requireViewer(ctx);
      const typeName = SUBJECT_TYPES[n.subjectType];
      const found = await lookUp(info, typeName, n.subjectId, ctx);
      if (found === null || typeof found !== "object") return null;
      subjectTypeNames.set(found, typeName);
      return found as never;
    },
  };
  const NotificationSubject: NotificationSubjectResolvers = {
    __resolveType: (subject: object) =>
      (subjectTypeNames.get(subject) ?? null) as ReturnType<
        NotificationSubjectResolvers["__resolveType"]
      >,
  };
  const NotificationPreference: NotificationPreferenceResolvers = {
    type: (p: { kind: string }) => kindEnumValue(p.kind) as NotificationKind,
  };
  const PushDevice: PushDeviceResolvers = {
    id: (d: DeviceRow) => d.publicId,
    createdAt: (d: DeviceRow) => d.createdAt.toISOString(),
    updatedAt: (d: DeviceRow) => d.updatedAt.toISOString(),
  };

  const Query: QueryResolvers = {
    notifications: viewerField(async (viewer, args) => {
      const acknowledged = args.acknowledged ?? null;
      const connection = await paginate(
        args,
        ["timestamp", "publicId"],
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
    pushDevices: viewerField((viewer) => devices.listDevices(deps, viewer)),
    pushConfiguration: viewerField(() => devices.pushConfiguration(deps)),
  };

  const Mutation: MutationResolvers = {
    acknowledgeNotification: viewerField((viewer, args) => service.acknowledge(deps, viewer, args)),
    acknowledgeAllNotifications: viewerField((viewer) => service.acknowledgeAll(deps, viewer)),
    setNotificationPreference: viewerField((viewer, args) =>
      service.setPreference(deps, viewer, args)
    ),
    registerPushDevice: viewerField((viewer, args) => devices.registerDevice(deps, viewer, args)),
    unregisterPushDevice: viewerField((viewer, args) =>
      devices.unregisterDevice(deps, viewer, args)
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

  return {
    typeDefs: notificationsTypeDefs,
    errorCodes,
    resolvers: {
      Notification,
      NotificationSubject,
      NotificationPreference,
      PushDevice,
      Query,
      Mutation,
      Subscription,
    },
  };
}
