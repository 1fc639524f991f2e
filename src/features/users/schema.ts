/** GraphQL for identity: `syncUser`, `me`, `updateMe`, `authzCheck`. */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import type { GraphQLContext } from "../../graphql/context.ts";
import { requireViewer, viewerField } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { userError } from "../../platform/user-error.ts";
import { type ProfileInput, profilePatch } from "./rules.ts";
import { completeOnboarding, updateUser, type UserRow, usersByIds } from "./store.ts";
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
    createdAt: DateTime!
  }

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
  }

  extend type Mutation {
    syncUser: SyncUserPayload!
    updateMe(firstName: String, lastName: String, username: String, timeZone: String): UpdateMePayload!
    "Marks onboarding as completed; only the first call sets onboardingCompletedAt."
    completeOnboarding: UpdateMePayload!
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
  deps: { db: Database; clock: Clock; viewers: ViewerCache },
): GraphQLModule {
  const sql = deps.db.sql;
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
