/** GraphQL for badges: the `Badge` type, `me.badges` and the feed's `BadgeEarnedActivity`. */
import type { Database } from "../../platform/db.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { badgeDefinition, BADGES } from "./rules.ts";
import { type BadgeRow, badgesOfUsers } from "./store.ts";

const typeDefs = /* GraphQL */ `
  "The badges of the catalogue (docs/domain.md)."
  enum BadgeCode { ${BADGES.map((b) => b.code).join(" ")} }

  "A badge a user earned (each at most once)."
  type Badge {
    id: ID!
    code: BadgeCode!
    name: String!
    description: String!
    earnedAt: DateTime!
  }

  extend type CurrentUser {
    "Badges earned, oldest first."
    badges: [Badge!]!
  }

  type BadgeEarnedActivity {
    badgeCode: BadgeCode!
    badge: Badge
  }

  extend union FeedActivity = BadgeEarnedActivity
`;

/** A user's badges through the request's DataLoader. */
function loadBadges(ctx: GraphQLContext, sql: Database["sql"], userId: string) {
  return ctx.loader<string, BadgeRow[]>("badgesOfUser", async (ids) => {
    const rows = await badgesOfUsers(sql, ids);
    return ids.map((id) => rows.filter((r) => r.userId === id));
  }).load(userId);
}

export function badgesModule(deps: { db: Database }): GraphQLModule {
  const sql = deps.db.sql;
  return {
    typeDefs,
    resolvers: {
      Badge: {
        id: (b: BadgeRow) => b.publicId,
        name: (b: BadgeRow) => badgeDefinition(b.code)?.name ?? b.code,
        description: (b: BadgeRow) => badgeDefinition(b.code)?.description ?? "",
        earnedAt: (b: BadgeRow) => b.earnedAt.toISOString(),
      },
      CurrentUser: {
        badges: (u: { id: string }, _: unknown, ctx: GraphQLContext) => loadBadges(ctx, sql, u.id),
      },
      BadgeEarnedActivity: {
        badgeCode: (a: { code?: string }) => a.code,
        badge: async (a: { code?: string }, _: unknown, ctx: GraphQLContext) => {
          const rows = await loadBadges(ctx, sql, requireViewer(ctx).userId);
          return rows.find((b) => b.code === a.code) ?? null;
        },
      },
    },
  };
}
