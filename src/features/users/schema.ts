/**
 * GraphQL for identity: `syncUser`, `me`, `updateMe`, `authzCheck`, and finding people:
 * `userByUsername`, `searchUsers`, `setDiscoverability` (docs/domain.md, "Finding people").
 */
import { viewerField } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import type {
  CurrentUserResolvers,
  MutationResolvers,
  QueryResolvers,
  UserResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { USERS_ERROR_CODES } from "./rules.ts";
import * as service from "./service.ts";
import type { UserRow, UsersServiceDeps } from "./service.ts";

const typeDefs = /* GraphQL */ `
  "A person as other users see them."
  type User {
    "The user's public id."
    id: ID!
    "3 to 30 letters, digits, _, . or -; unique ignoring case."
    username: String!
    "Up to 50 characters; null when not given."
    firstName: String
    "Up to 50 characters; null when not given."
    lastName: String
  }

  "The supporter plan a user holds (the billing plan slugs)."
  enum SupporterTier {
    "A monthly subscription."
    supporter_monthly
    "A yearly subscription."
    supporter_yearly
    "A one-time purchase that does not expire."
    lifetime
  }

  "The signed-in user."
  type CurrentUser {
    "The user's public id."
    id: ID!
    "3 to 30 letters, digits, _, . or -; unique ignoring case."
    username: String!
    "Up to 50 characters; null when not given."
    firstName: String
    "Up to 50 characters; null when not given."
    lastName: String
    "IANA time zone; a user's day boundaries follow it. A new user starts in the zone of the token's zoneinfo claim when it is a valid IANA zone, else UTC."
    timeZone: String!
    "The user's current local date in timeZone: the day a check-in without a date counts for."
    today: Date!
    "True while the user holds a supporter plan (supporterTier is not null)."
    isSupporter: Boolean!
    "The supporter plan held; null when none."
    supporterTier: SupporterTier
    "When the user first completed onboarding (completeOnboarding); null until then."
    onboardingCompletedAt: DateTime
    "Who may find this user by name (setDiscoverability)."
    discoverability: Discoverability!
    "When the account was created (the user's first authenticated request)."
    createdAt: DateTime!
  }

  """
  Who may find a user by name. searchable: by the exact username and by prefix search.
  exact_username (the default): only by the exact username. hidden: by neither.
  """
  enum Discoverability {
    "By the exact username and by prefix search (searchUsers)."
    searchable
    "Only by the exact username (userByUsername); the default."
    exact_username
    "By neither: others meet the user only where they already share something, e.g. a community."
    hidden
  }

  ${connectionTypeDefs("User", { totalCount: false })}

  "The answer of syncUser."
  type SyncUserPayload {
    "The signed-in user."
    user: User
    "True only on the user's very first authenticated request."
    firstSignIn: Boolean!
    errors: [UserError!]!
  }

  "The answer of updateMe, completeOnboarding and setDiscoverability."
  type UpdateMePayload {
    "The signed-in user as they are now; null when the request was refused."
    user: CurrentUser
    errors: [UserError!]!
  }

  extend type Query {
    "The signed-in user (created on their first authenticated request)."
    me: CurrentUser!
    "Whether the current user holds a permission such as admin."
    authzCheck(
      "The permission: admin is the one there is (any other answers false)."
      permission: String!
    ): Boolean!
    """
    The user of a username (case-insensitive, exact); null when there is none, the user is hidden
    or either of you blocked the other. Counted with searchUsers against a per-minute limit
    (RATE_LIMITED past it).
    """
    userByUsername("The whole username, in any case." username: String!): User
    """
    Searchable users whose username starts with prefix (2 to 30 username characters, no pattern
    syntax), in order of their lower-cased username; users blocked either way are left out.
    """
    searchUsers(
      "The start of the username, in any case: 2 to 30 letters, digits, _, . or - (else BAD_USER_INPUT)."
      prefix: String!
      first: Int
      after: String
      last: Int
      before: String
    ): UserConnection!
  }

  extend type Mutation {
    "Answers the signed-in user, created on their first authenticated request (of any kind)."
    syncUser: SyncUserPayload!
    "Changes the signed-in user's profile; an absent argument leaves its field as it is."
    updateMe(
      "Up to 50 characters (trimmed); null or empty clears it."
      firstName: String
      "Up to 50 characters (trimmed); null or empty clears it."
      lastName: String
      "3 to 30 letters, digits, _, . or -, not taken by another user ignoring case; it cannot be cleared."
      username: String
      "An IANA time zone such as Europe/Berlin (not an offset such as +05:00); it moves the user's days from now on, never past check-ins."
      timeZone: String
    ): UpdateMePayload!
    "Marks onboarding as completed; only the first call sets onboardingCompletedAt."
    completeOnboarding: UpdateMePayload!
    "Sets who may find the viewer by name."
    setDiscoverability("Who may find the viewer from now on." discoverability: Discoverability!): UpdateMePayload!
  }
`;

/** The codes each mutation's service answers. */
const errorCodes: Record<string, readonly typeof USERS_ERROR_CODES[number][]> = {
  syncUser: [],
  updateMe: ["invalid", "username_taken"],
  completeOnboarding: [],
  setDiscoverability: [],
};

const iso = (d: Date | null) => d ? d.toISOString() : null;

const currentUserFields: CurrentUserResolvers = {
  id: (u: UserRow) => u.publicId,
  isSupporter: (u: UserRow) => u.supporterTier !== null,
  onboardingCompletedAt: (u: UserRow) => iso(u.onboardingCompletedAt),
  createdAt: (u: UserRow) => u.createdAt.toISOString(),
};

const User: UserResolvers = { id: (u: UserRow) => u.publicId };

export function usersModule(deps: UsersServiceDeps): GraphQLModule {
  const CurrentUser: CurrentUserResolvers = {
    ...currentUserFields,
    today: (u: UserRow) => service.todayOf(deps, u),
  };

  const Query: QueryResolvers = {
    me: viewerField((viewer, _, ctx) =>
      service.currentUser(deps, { userId: viewer.userId, loader: ctx.loader })
    ),
    authzCheck: viewerField((viewer, args) => args.permission === "admin" && viewer.isAdmin),
    userByUsername: viewerField((viewer, args) => service.userByUsername(deps, viewer, args)),
    searchUsers: viewerField((viewer, args) => service.searchUsers(deps, viewer, args)),
  };

  const Mutation: MutationResolvers = {
    syncUser: viewerField(async (viewer, _, ctx) => ({
      user: await service.currentUser(deps, { userId: viewer.userId, loader: ctx.loader }),
      firstSignIn: viewer.firstSignIn,
      errors: [],
    })),
    completeOnboarding: viewerField((viewer) => service.completeOnboarding(deps, viewer)),
    setDiscoverability: viewerField((viewer, args) =>
      service.setDiscoverability(deps, viewer, args)
    ),
    updateMe: viewerField((viewer, args) => service.updateMe(deps, viewer, args)),
  };

  return { typeDefs, errorCodes, resolvers: { CurrentUser, User, Query, Mutation } };
}
