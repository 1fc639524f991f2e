/**
 * Goals, progress events and check-ins as Nodes (docs/graphql.md, "Object identity"): each is
 * fetched by `node(id:)` for its owner only, as `goal(id:)` is (the Goal's lookup is the goals
 * module's own).
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import * as service from "./service.ts";
import type { GoalEventRow, GoalRow, GoalsDeps } from "./service.ts";

export function goalNodesModule(deps: Pick<GoalsDeps, "db">): GraphQLModule {
  return {
    ...nodeTypes({
      Goal: (g: GoalRow) => g.publicId,
      GoalEvent: (e: GoalEventRow) => e.publicId,
      CheckIn: (c: { publicId: string }) => c.publicId,
    }),
    lookups: {
      GoalEvent: (id, ctx) => service.ownGoalEvent(deps, requireViewer(ctx), id),
      CheckIn: (id, ctx) => service.ownCheckIn(deps, requireViewer(ctx), id),
    },
  };
}
