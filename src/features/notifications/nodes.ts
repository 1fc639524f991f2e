/**
 * Notifications as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers a notification
 * to its user only, as `notifications` lists it.
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import type { NotificationView } from "./rules.ts";
import * as service from "./service.ts";
import type { NotificationsDeps } from "./service.ts";

export function notificationNodesModule(deps: Pick<NotificationsDeps, "db">): GraphQLModule {
  return {
    ...nodeTypes({ Notification: (n: NotificationView) => n.id }),
    lookups: { Notification: (id, ctx) => service.ownNotification(deps, requireViewer(ctx), id) },
  };
}
