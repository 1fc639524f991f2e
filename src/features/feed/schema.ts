/**
 * GraphQL for the unified activity feed. Each item's `activity` is a member of the
 * `FeedActivity` union named after its kind (`goal_event` → `GoalEventActivity`). The feature
 * that writes a kind defines its activity type and adds it with `extend union FeedActivity = ...`
 * (goals, badges, communities); the activity object is the item's `data`.
 */
import type { Database } from "../../platform/db.ts";
import { type GraphQLContext, viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import { activityTypeName } from "./rules.ts";
import { type FeedItemRow, feedPage } from "./store.ts";

export interface FeedDeps {
  db: Database;
  users: Pick<UsersApi, "loadUser">;
}

const typeDefs = /* GraphQL */ `
  "One thing that happened, newest first in unifiedFeed."
  type FeedItem {
    id: ID!
    "The source, e.g. goal_event, check_in, badge_earned, goal_completed."
    kind: String!
    occurredAt: String!
    actor: User!
    activity: FeedActivity!
  }

  "What happened: one member per kind of item, added by the feature that writes that kind."
  union FeedActivity

  type FeedItemEdge {
    cursor: String!
    node: FeedItem!
  }

  type FeedItemConnection {
    edges: [FeedItemEdge!]!
    pageInfo: PageInfo!
  }

  extend type Query {
    "The current user's activity, newest first (first: 0..100, default 20)."
    unifiedFeed(first: Int, after: String): FeedItemConnection!
  }
`;

export function feedModule(deps: FeedDeps): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      FeedItem: {
        id: (i: FeedItemRow) => i.publicId,
        occurredAt: (i: FeedItemRow) => i.occurredAt.toISOString(),
        actor: (i: FeedItemRow, _: unknown, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, i.userId),
        activity: (i: FeedItemRow) => ({ ...i.data, __kind: i.kind }),
      },
      FeedActivity: { __resolveType: (a: { __kind: string }) => activityTypeName(a.__kind) },
      Query: {
        unifiedFeed: viewerField((viewer, args: PageArgs) =>
          paginate(
            args,
            ["string"],
            ({ limit, after }) => feedPage(sql, viewer.userId, limit, after?.[0] ?? null),
            (r) => [r.publicId],
          )
        ),
      },
    },
  };
}
