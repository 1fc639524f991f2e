/**
 * GraphQL for the unified activity feed. Each item's `activity` is a member of the
 * `FeedActivity` union named after its kind (`goal_event` → `GoalEventActivity`). The feature
 * that writes a kind defines its activity type and adds it with `extend union FeedActivity = ...`
 * (goals, badges, communities); the activity object is the item's `data`.
 */
import { viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import type {
  FeedActivityResolvers,
  FeedItemResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import { activityTypeName } from "./rules.ts";
import * as service from "./service.ts";
import type { FeedDeps, FeedItemRow } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "The source of a feed item; its activity is the FeedActivity member of the same name."
  enum FeedItemKind {
    "Progress was logged on a goal (GoalEventActivity)."
    goal_event
    "A habit was checked in for a day (CheckInActivity)."
    check_in
    "A goal reached its target (GoalCompletedActivity)."
    goal_completed
    "A badge was awarded (BadgeEarnedActivity)."
    badge_earned
    "A post was written in a community (CommunityPostActivity)."
    community_post
  }

  "One thing that happened, newest first in unifiedFeed."
  type FeedItem {
    "The item's public id."
    id: ID!
    "What happened; says which FeedActivity member activity is."
    kind: FeedItemKind!
    "When it happened (for a goal event, the time it was logged for, which may be in the past)."
    occurredAt: DateTime!
    "The user who did it: the viewer, or someone whose activity they follow."
    actor: User!
    "The details of what happened, one type per kind."
    activity: FeedActivity!
  }

  "What happened: one member per kind of item, added by the feature that writes that kind."
  union FeedActivity
  ${connectionTypeDefs("FeedItem", { totalCount: false })}

  extend type Query {
    "The current user's activity and that of the audiences they follow (but no one blocked either way), newest first."
    unifiedFeed(
      "Paging forward: how many items, default 20, at most 100; not together with last."
      first: Int
      "Paging forward: the items after this cursor (an edge's cursor or pageInfo.endCursor)."
      after: String
      "Paging backward: how many items, default 20, at most 100; not together with first."
      last: Int
      "Paging backward: the items before this cursor (an edge's cursor or pageInfo.startCursor)."
      before: String
    ): FeedItemConnection!
  }
`;

export function feedModule(deps: FeedDeps): GraphQLModule {
  const FeedItem: FeedItemResolvers = {
    id: (i: FeedItemRow) => i.publicId,
    actor: (i: FeedItemRow, _, ctx) => deps.users.loadUser(ctx, i.userId),
    activity: (i: FeedItemRow) => ({ ...i.data, __kind: i.kind }),
  };
  const FeedActivity: FeedActivityResolvers = {
    __resolveType: (a: { __kind: string }) => activityTypeName(a.__kind),
  };
  const Query: QueryResolvers = {
    unifiedFeed: viewerField((viewer, args) => service.unifiedFeed(deps, viewer, args)),
  };
  return { typeDefs, resolvers: { FeedItem, FeedActivity, Query } };
}
