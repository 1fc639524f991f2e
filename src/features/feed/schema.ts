/**
 * GraphQL for the unified activity feed. Each item's `activity` is a member of the
 * `FeedActivity` union named after its kind (`goal_event` → `GoalEventActivity`). The feature
 * that writes a kind defines its activity type and adds it with `extend union FeedActivity = ...`
 * (goals, badges, communities); the activity object is the item's `data`.
 */
import type { Database } from "../../platform/db.ts";
import { type GraphQLContext, viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { UsersApi } from "../users/mod.ts";
import { activityTypeName } from "./rules.ts";
import { type FeedItemRow, feedPage } from "./store.ts";

export interface FeedDeps {
  db: Database;
  users: Pick<UsersApi, "loadUser" | "blockedBetween">;
}

const typeDefs = /* GraphQL */ `
  "The source of a feed item; its activity is the FeedActivity member of the same name."
  enum FeedItemKind { goal_event check_in goal_completed badge_earned community_post }

  "One thing that happened, newest first in unifiedFeed."
  type FeedItem {
    id: ID!
    kind: FeedItemKind!
    occurredAt: DateTime!
    actor: User!
    activity: FeedActivity!
  }

  "What happened: one member per kind of item, added by the feature that writes that kind."
  union FeedActivity
  ${connectionTypeDefs("FeedItem", { totalCount: false })}

  extend type Query {
    "The current user's activity and that of the audiences they follow (but no one blocked either way), newest first."
    unifiedFeed(first: Int, after: String, last: Int, before: String): FeedItemConnection!
  }
`;

export function feedModule(deps: FeedDeps): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      FeedItem: {
        id: (i: FeedItemRow) => i.publicId,
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
            (window) =>
              feedPage(sql, viewer.userId, {
                limit: window.limit,
                after: window.after?.[0] ?? null,
                before: window.before?.[0] ?? null,
                backward: window.backward,
              }, (actor) => deps.users.blockedBetween(sql, viewer.userId, actor)),
            (r) => [r.publicId],
          )
        ),
      },
    },
  };
}
