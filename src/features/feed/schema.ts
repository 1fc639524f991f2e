/**
 * GraphQL for the unified activity feed. Each item's `activity` is a member of the
 * `FeedActivity` union named after its kind (`goal_event` → `GoalEventActivity`): a later
 * feature adds a source by writing items with a new kind and `extend union FeedActivity = ...`.
 */
import type { Database } from "../../platform/db.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { clampFirst, decodeCursor, toConnection } from "../../graphql/pagination.ts";
import { badUserInput } from "../../graphql/errors.ts";
import { loadUser } from "../users/schema.ts";
import { loadGoal } from "../goals/schema.ts";
import { loadBadges } from "../badges/schema.ts";
import { type FeedItemRow, feedPage } from "./store.ts";

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

  "Progress recorded on a target."
  type GoalEventActivity {
    "Null when the goal is no longer visible to the viewer."
    goal: Goal
    goalTitle: String!
    value: Float!
    unit: String
    note: String
  }

  "A habit check-in."
  type CheckInActivity {
    goal: Goal
    goalTitle: String!
    "The local day checked in, YYYY-MM-DD."
    date: String!
    "The streak after this check-in."
    streak: Int!
  }

  type GoalCompletedActivity {
    goal: Goal
    goalTitle: String!
  }

  type BadgeEarnedActivity {
    badgeCode: String!
    badge: Badge
  }

  union FeedActivity = GoalEventActivity | CheckInActivity | GoalCompletedActivity | BadgeEarnedActivity

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

const typeName = (kind: string) =>
  kind.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join("") + "Activity";

type Activity = FeedItemRow["data"] & { __kind: string; __viewer: string };

export function feedModule(deps: { db: Database }): GraphQLModule {
  const sql = deps.db.sql;
  const goalOf = async (a: Activity, _: unknown, ctx: GraphQLContext) => {
    if (typeof a.goalId !== "string") return null;
    const goal = await loadGoal(ctx, sql, a.goalId);
    return goal && goal.userId === ctx.viewer?.userId ? goal : null;
  };
  return {
    typeDefs,
    resolvers: {
      FeedItem: {
        id: (i: FeedItemRow) => i.publicId,
        occurredAt: (i: FeedItemRow) => i.occurredAt.toISOString(),
        actor: (i: FeedItemRow, _: unknown, ctx: GraphQLContext) => loadUser(ctx, sql, i.userId),
        activity: (i: FeedItemRow) => ({ ...i.data, __kind: i.kind }),
      },
      FeedActivity: { __resolveType: (a: Activity) => typeName(a.__kind) },
      GoalEventActivity: { goal: goalOf },
      CheckInActivity: { goal: goalOf, streak: (a: Activity) => a.streak ?? 0 },
      GoalCompletedActivity: { goal: goalOf },
      BadgeEarnedActivity: {
        badgeCode: (a: Activity) => a.code,
        badge: async (a: Activity, _: unknown, ctx: GraphQLContext) => {
          const rows = await loadBadges(ctx, sql, requireViewer(ctx).userId);
          return rows.find((b) => b.code === a.code) ?? null;
        },
      },
      Query: {
        unifiedFeed: async (
          _: unknown,
          args: { first?: number | null; after?: string | null },
          ctx: GraphQLContext,
        ) => {
          const viewer = requireViewer(ctx);
          const first = clampFirst(args.first);
          const after = decodeCursor(args.after, 1);
          if (after && typeof after[0] !== "string") {
            throw badUserInput("invalid cursor in `after`");
          }
          const rows = await feedPage(sql, viewer.userId, first + 1, after?.[0] as string ?? null);
          return toConnection(rows, first, (r) => [r.publicId]);
        },
      },
    },
  };
}
