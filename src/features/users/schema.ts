/**
 * GraphQL for identity: `syncUser`, `me`, `updateMe`, `authzCheck`, and finding people:
 * `userByUsername`, `searchUsers`, `setDiscoverability` (docs/domain.md, "Finding people").
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { requireViewer, type Viewer, viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { badUserInput, codedError } from "../../graphql/errors.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import type { RateLimiter } from "../../platform/rate-limit.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { userError } from "../../platform/user-error.ts";
import {
  type Discoverability,
  lookupKey,
  prefixRange,
  type ProfileInput,
  profilePatch,
  searchPrefixError,
  USER_LOOKUP_LIMIT,
} from "./rules.ts";
import {
  completeOnboarding,
  findableByUsername,
  searchPage,
  setDiscoverability,
  updateUser,
  type UserRow,
  usersByIds,
} from "./store.ts";
import type { ViewerCache } from "./viewer-cache.ts";

const typeDefs = /* GraphQL */ `
  "A person as other users see them."
  type User {
    id: ID!
    username: String!
    firstName: String
    lastName: String
  }

  "The supporter plan a user holds (the billing plan slugs)."
  enum SupporterTier { supporter_monthly supporter_yearly lifetime }

  "The signed-in user."
  type CurrentUser {
    id: ID!
    username: String!
    firstName: String
    lastName: String
    "IANA time zone; a user's day boundaries follow it."
    timeZone: String!
    isSupporter: Boolean!
    supporterTier: SupporterTier
    onboardingCompletedAt: DateTime
    "Who may find this user by name (setDiscoverability)."
    discoverability: Discoverability!
    createdAt: DateTime!
  }

  """
  Who may find a user by name. searchable: by the exact username and by prefix search.
  exact_username (the default): only by the exact username. hidden: by neither.
  """
  enum Discoverability { searchable exact_username hidden }

  ${connectionTypeDefs("User", { totalCount: false })}

  type SyncUserPayload {
    user: User
    "True only on the user's very first authenticated request."
    firstSignIn: Boolean!
    errors: [UserError!]!
  }

  type UpdateMePayload {
    user: CurrentUser
    errors: [UserError!]!
  }

  extend type Query {
    me: CurrentUser!
    "Whether the current user holds a permission such as admin."
    authzCheck(permission: String!): Boolean!
    """
    The user of a username (case-insensitive, exact); null when there is none, the user is hidden
    or either of you blocked the other. Counted with searchUsers against a per-minute limit
    (RATE_LIMITED past it).
    """
    userByUsername(username: String!): User
    """
    Searchable users whose username starts with prefix (2 to 30 username characters, no pattern
    syntax), in order of their lower-cased username; users blocked either way are left out.
    """
    searchUsers(
      prefix: String!
      first: Int
      after: String
      last: Int
      before: String
    ): UserConnection!
  }

  extend type Mutation {
    syncUser: SyncUserPayload!
    updateMe(firstName: String, lastName: String, username: String, timeZone: String): UpdateMePayload!
    "Marks onboarding as completed; only the first call sets onboardingCompletedAt."
    completeOnboarding: UpdateMePayload!
    "Sets who may find the viewer by name."
    setDiscoverability(discoverability: Discoverability!): UpdateMePayload!
  }
`;

/** Loads users by internal id through the request's DataLoader. */
export function loadUser(ctx: GraphQLContext, sql: Database["sql"], id: string) {
  return loadByKey(ctx, "userById", (ids) => usersByIds(sql, ids), (r) => r.id, id);
}

const iso = (d: Date | null) => d ? d.toISOString() : null;

const userResolvers = {
  CurrentUser: {
    id: (u: UserRow) => u.publicId,
    isSupporter: (u: UserRow) => u.supporterTier !== null,
    onboardingCompletedAt: (u: UserRow) => iso(u.onboardingCompletedAt),
    createdAt: (u: UserRow) => u.createdAt.toISOString(),
  },
  User: { id: (u: UserRow) => u.publicId },
};

export function usersModule(
  deps: { db: Database; clock: Clock; viewers: ViewerCache; limiter: RateLimiter },
): GraphQLModule {
  const sql = deps.db.sql;
  /** Counts one lookup or search of the viewer; RATE_LIMITED past the limit. */
  const countLookup = async (viewer: Viewer) => {
    const verdict = await deps.limiter.consume(USER_LOOKUP_LIMIT, viewer.publicId);
    if (!verdict.allowed) {
      throw codedError(
        "RATE_LIMITED",
        `too many lookups of users: retry after ${verdict.retryAfterSeconds} s`,
        { retryAfter: verdict.retryAfterSeconds },
      );
    }
  };
  const currentUser = async (ctx: GraphQLContext) => {
    const viewer = requireViewer(ctx);
    return deps.viewers.byId(viewer.userId) ?? (await loadUser(ctx, sql, viewer.userId))!;
  };
  return {
    typeDefs,
    resolvers: {
      ...userResolvers,
      Query: {
        me: (_: unknown, __: unknown, ctx: GraphQLContext) => currentUser(ctx),
        authzCheck: viewerField((viewer, args: { permission: string }) => {
          return args.permission === "admin" && viewer.isAdmin;
        }),
        userByUsername: viewerField(async (viewer, args: { username: string }) => {
          await countLookup(viewer);
          const key = lookupKey(args.username);
          return key === null ? null : await findableByUsername(sql, viewer.userId, key);
        }),
        searchUsers: viewerField(async (viewer, args: PageArgs & { prefix: string }) => {
          const problem = searchPrefixError(args.prefix);
          if (problem) throw badUserInput(problem);
          await countLookup(viewer);
          const range = prefixRange(args.prefix);
          return await paginate(
            args,
            ["string"],
            (window) => searchPage(sql, viewer.userId, range, window),
            (r) => [r.sortKey],
          );
        }),
      },
      Mutation: {
        syncUser: async (_: unknown, __: unknown, ctx: GraphQLContext) => ({
          user: await currentUser(ctx),
          firstSignIn: requireViewer(ctx).firstSignIn,
          errors: [],
        }),
        completeOnboarding: async (_: unknown, __: unknown, ctx: GraphQLContext) => {
          const userId = requireViewer(ctx).userId;
          const user = await deps.viewers.changing(
            userId,
            () => completeOnboarding(sql, userId, deps.clock.now()),
          );
          return { user, errors: [] };
        },
        setDiscoverability: viewerField(
          async (viewer, args: { discoverability: Discoverability }) => ({
            user: await deps.viewers.changing(
              viewer.userId,
              () => setDiscoverability(sql, viewer.userId, args.discoverability),
            ),
            errors: [],
          }),
        ),
        updateMe: viewerField(async (viewer, args: ProfileInput) => {
          const { patch, errors } = profilePatch(args);
          if (errors.length) return { user: null, errors };
          const result = await deps.viewers.changing(
            viewer.userId,
            () => updateUser(sql, viewer.userId, patch),
          );
          if (result === "username_taken") {
            return {
              user: null,
              errors: [userError("username_taken", "username is already taken", "username")],
            };
          }
          return { user: result, errors: [] };
        }),
      },
    },
  };
}
