/** GraphQL for badges: the `Badge` type, `me.badges` and the feed's `BadgeEarnedActivity`. */
import type { Database } from "../../platform/db.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import type {
  BadgeEarnedActivityResolvers,
  BadgeResolvers,
  CurrentUserResolvers,
} from "../../graphql/resolvers.gen.ts";
import { type BadgeDefinition, badgeDefinition, BADGES } from "./rules.ts";
import * as service from "./service.ts";
import type { BadgeRow } from "./service.ts";

/** A badge code's description in the schema: its name, what earns it, and what a streak counts. */
const codeDescription = (b: BadgeDefinition) =>
  `${b.name}: ${b.description}${
    b.code.startsWith("streak_")
      ? " (days: a daily habit's check-ins or a target's days with progress)"
      : ""
  }.`;

const typeDefs = /* GraphQL */ `
  "The badges of the catalogue (docs/domain.md)."
  enum BadgeCode {
    ${BADGES.map((b) => `"${codeDescription(b)}"\n    ${b.code}`).join("\n    ")}
  }

  "A badge a user earned (each at most once)."
  type Badge {
    "The public id of this user's badge."
    id: ID!
    "Which badge it is."
    code: BadgeCode!
    "Its display name, e.g. First step."
    name: String!
    "What earned it, for display, e.g. Created a first goal."
    description: String!
    "When the user earned it."
    earnedAt: DateTime!
  }

  extend type CurrentUser {
    "Badges earned, oldest first."
    badges: [Badge!]!
  }

  "A badge earned."
  type BadgeEarnedActivity {
    "The badge earned."
    badgeCode: BadgeCode!
    "The viewer's own badge of this code; null when the viewer does not hold it (taken back, or never earned)."
    badge: Badge
  }

  extend union FeedActivity = BadgeEarnedActivity
`;

/** A user's badges through the request's DataLoader. */
function loadBadges(ctx: GraphQLContext, deps: { db: Database }, userId: string) {
  return ctx.loader<string, BadgeRow[]>("badgesOfUser", async (ids) => {
    const rows = await service.badgesOfUsers(deps, ids);
    return ids.map((id) => rows.filter((r) => r.userId === id));
  }).load(userId);
}

export function badgesModule(deps: { db: Database }): GraphQLModule {
  const Badge: BadgeResolvers = {
    id: (b: BadgeRow) => b.publicId,
    name: (b: BadgeRow) => badgeDefinition(b.code)?.name ?? b.code,
    description: (b: BadgeRow) => badgeDefinition(b.code)?.description ?? "",
    earnedAt: (b: BadgeRow) => b.earnedAt.toISOString(),
  };
  const CurrentUser: CurrentUserResolvers = {
    badges: (u: { id: string }, _, ctx) => loadBadges(ctx, deps, u.id),
  };
  const BadgeEarnedActivity: BadgeEarnedActivityResolvers = {
    badgeCode: (a: { code?: string }) => a.code,
    badge: async (a: { code?: string }, _, ctx) => {
      const rows = await loadBadges(ctx, deps, requireViewer(ctx).userId);
      return rows.find((b) => b.code === a.code) ?? null;
    },
  };
  return {
    typeDefs,
    resolvers: { Badge, CurrentUser, BadgeEarnedActivity },
    // Only the viewer's own badges.
    lookups: {
      Badge: async (id, ctx) =>
        (await loadBadges(ctx, deps, requireViewer(ctx).userId)).find((b) => b.publicId === id) ??
          null,
    },
  };
}
