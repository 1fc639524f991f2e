/**
 * GraphQL for community challenges and points: `communityChallenge`, `communityChallenges`,
 * `communityChallengeLeaderboard`, `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `me.points`.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { connectionTypeDefs, type GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { type PageArgs, paginate } from "../../graphql/pagination.ts";
import { type UserError, userError } from "../../platform/user-error.ts";
import type { GoalsApi } from "../goals/mod.ts";
import type { NotificationsApi } from "../notifications/mod.ts";
import type { UsersApi } from "../users/mod.ts";
import type { CommunitiesApi } from "../communities/mod.ts";
import { canRead } from "../communities/rules.ts";
import {
  cancelError,
  type ChallengeMetric,
  challengeStatus,
  joinRefusal,
  joinWindowError,
  leaveRefusal,
  leaveWindowError,
  mayCancel,
  newChallengeErrors,
  pageRanks,
} from "./rules.ts";
import * as store from "./store.ts";
import type { ChallengeRow, LeaderboardRow } from "./store.ts";

export interface ChallengesDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser">;
  communities: Pick<CommunitiesApi, "communityAccess" | "visibleCommunity" | "loadCommunity">;
  /** Credits lock the activity they count, so an undo and a credit never cross. */
  goals: Pick<GoalsApi, "lockCheckIn" | "lockGoalEvent">;
  notifications: Pick<NotificationsApi, "notifyMany">;
}

const typeDefs = /* GraphQL */ `
  "check_ins: one point of score per habit check-in. goal_event_value: the sum of progress event values on targets."
  enum ChallengeMetric { check_ins goal_event_value }
  "upcoming: before startsAt (joining is open); running; ended; cancelled: called off before it started."
  enum ChallengeStatus { upcoming running ended cancelled }

  type CommunityChallenge {
    id: ID!
    community: Community!
    creator: User!
    title: String!
    description: String
    metric: ChallengeMetric!
    startsAt: DateTime!
    endsAt: DateTime!
    "Points spent on joining (refunded on leaving before the end)."
    entryCost: Int!
    participantCount: Int!
    status: ChallengeStatus!
    "When it was cancelled (before its start); null otherwise."
    cancelledAt: DateTime
    "The viewer's participation, or null."
    viewerParticipation: ChallengeParticipation
    createdAt: DateTime!
  }

  type ChallengeParticipation {
    score: Float!
    "Standard competition rank (ties share a rank: 1, 2, 2, 4)."
    rank: Int!
    entryCostPaid: Int!
    joinedAt: DateTime!
  }

  type LeaderboardEntry {
    rank: Int!
    score: Float!
    user: User!
    joinedAt: DateTime!
  }

  type LeaderboardEdge {
    cursor: String!
    node: LeaderboardEntry!
  }

  "A challenge's leaderboard: a cursor connection of its entries, best first."
  type ChallengeLeaderboard {
    challenge: CommunityChallenge!
    edges: [LeaderboardEdge!]!
    nodes: [LeaderboardEntry!]!
    pageInfo: PageInfo!
    "Every participant, all pages together."
    totalCount: Int!
    "The viewer's own entry wherever it is, or null when not participating."
    viewerEntry: LeaderboardEntry
  }

  ${connectionTypeDefs("CommunityChallenge")}

  type CommunityChallengePayload {
    challenge: CommunityChallenge
    errors: [UserError!]!
  }

  type CancelCommunityChallengePayload {
    challenge: CommunityChallenge
    "Participants whose entry cost was refunded."
    refundedCount: Int!
    errors: [UserError!]!
  }

  extend type CurrentUser {
    "Points: earned by check-ins (10) and progress events (5), spent on challenge entry costs."
    points: Int!
  }

  extend type Query {
    "Null when there is no such challenge or the viewer may not read its community."
    communityChallenge(id: String!): CommunityChallenge
    "A community's challenges, latest start first; null when the viewer may not read the community."
    communityChallenges(
      communityId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): CommunityChallengeConnection
    "Ranked by score, best first; null when the viewer may not read the challenge."
    communityChallengeLeaderboard(
      challengeId: String!
      first: Int
      after: String
      last: Int
      before: String
    ): ChallengeLeaderboard
  }

  extend type Mutation {
    "Members only; entryCost in points (default 0)."
    createCommunityChallenge(
      communityId: String!
      title: String!
      description: String
      metric: ChallengeMetric!
      startsAt: DateTime!
      endsAt: DateTime!
      entryCost: Int
    ): CommunityChallengePayload!
    "Members only, before endsAt (scores count from startsAt); spends the entry cost."
    joinCommunityChallenge(challengeId: String!): CommunityChallengePayload!
    "Before the end: refunds the entry cost and clears the participant's progress."
    leaveCommunityChallenge(challengeId: String!): CommunityChallengePayload!
    "Before the start, by its creator (a member) or the community's owner: every participant leaves with the entry cost refunded."
    cancelCommunityChallenge(challengeId: String!): CancelCommunityChallengePayload!
  }
`;

type Args = Record<string, unknown>;

/** A DateTime argument (a `Date` after coercion), or null. */
const instant = (value: unknown): Date | null =>
  value instanceof Date && !Number.isNaN(value.getTime()) ? value : null;

export function challengesModule(deps: ChallengesDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();

  /** The challenge of a public id whose community the viewer may read, or null. */
  async function readableChallenge(ctx: GraphQLContext, id: unknown) {
    const challenge = typeof id === "string" && looksLikePublicId(id)
      ? await store.challengeByPublicId(sql, id)
      : null;
    const found = challenge
      ? await deps.communities.communityAccess(ctx, challenge.communityId)
      : null;
    if (!challenge || !found || !canRead(found.access)) return null;
    return { challenge, access: found.access };
  }

  function loadParticipation(ctx: GraphQLContext, challengeId: string) {
    const viewer = requireViewer(ctx);
    return loadByKey(
      ctx,
      "challengeParticipation",
      (ids) => store.participations(sql, viewer.userId, ids),
      (r) => r.challengeId,
      challengeId,
    );
  }

  const fail = (errors: UserError[]) => ({ challenge: null, errors });
  const notFound = (field: string, what: string) =>
    fail([userError("not_found", `no such ${what}`, field)]);
  const reload = async (c: ChallengeRow) => ({
    challenge: await store.challengeByPublicId(sql, c.publicId),
    errors: [],
  });

  async function createChallenge(ctx: GraphQLContext, args: Args) {
    const viewer = requireViewer(ctx);
    const found = await deps.communities.visibleCommunity(ctx, args.communityId);
    if (!found) return notFound("communityId", "community");
    const { community, access } = found;
    if (access.role === null) {
      return fail([userError("not_member", "only members can create challenges")]);
    }
    const input = {
      title: String(args.title ?? "").trim(),
      description: (args.description as string | null | undefined)?.trim() || null,
      startsAt: instant(args.startsAt),
      endsAt: instant(args.endsAt),
      entryCost: (args.entryCost ?? 0) as number,
    };
    const errors = newChallengeErrors(input, now());
    if (errors.length) return fail(errors);
    const challenge = await store.insertChallenge(sql, {
      ...input,
      startsAt: input.startsAt!,
      endsAt: input.endsAt!,
      communityId: community.id,
      creatorId: viewer.userId,
      metric: args.metric as ChallengeMetric,
    }, now());
    return { challenge, errors: [] };
  }

  async function joinChallenge(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const found = await readableChallenge(ctx, id);
    if (!found) return notFound("challengeId", "challenge");
    const { challenge, access } = found;
    if (access.role === null) {
      return fail([userError("not_member", "only community members can join")]);
    }
    const window = joinWindowError(now(), challenge);
    if (window) return fail([window]);
    const refusal = joinRefusal(
      await store.join(sql, challenge, viewer.userId, now()),
      challenge.entryCost,
    );
    return refusal ? fail([refusal]) : await reload(challenge);
  }

  async function leaveChallenge(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const challenge = (await readableChallenge(ctx, id))?.challenge ??
      await ownChallenge(ctx, id);
    if (!challenge) return notFound("challengeId", "challenge");
    const window = leaveWindowError(now(), challenge.endsAt);
    if (window) return fail([window]);
    const refusal = leaveRefusal(await store.leave(sql, challenge, viewer.userId, now()));
    return refusal ? fail([refusal]) : await reload(challenge);
  }

  /**
   * A challenge the viewer takes part in although they may no longer read its community (they
   * left a private one): they may still leave it and get the entry cost back.
   */
  async function ownChallenge(ctx: GraphQLContext, id: unknown) {
    const challenge = typeof id === "string" && looksLikePublicId(id)
      ? await store.challengeByPublicId(sql, id)
      : null;
    return challenge && await loadParticipation(ctx, challenge.id) ? challenge : null;
  }

  async function cancelChallenge(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const refused = (errors: UserError[]) => ({ challenge: null, refundedCount: 0, errors });
    const found = await readableChallenge(ctx, id);
    if (!found) return refused(notFound("challengeId", "challenge").errors);
    const { challenge, access } = found;
    const notAllowed = userError(
      "not_allowed",
      "only the challenge's creator or the community's owner can cancel it",
      "challengeId",
    );
    if (!mayCancel(viewer.userId, challenge.creatorId, access.role)) return refused([notAllowed]);
    const problem = cancelError(now(), challenge);
    if (problem) return refused([problem]);
    const done = await store.cancel(sql, challenge.id, viewer.userId, now());
    if (done.result === "not_allowed") return refused([notAllowed]);
    if (done.result === "refused") {
      // It started, or someone else cancelled it, meanwhile.
      const fresh = await store.challengeByPublicId(sql, challenge.publicId);
      return refused([cancelError(now(), fresh ?? challenge) ?? notAllowed]);
    }
    return { challenge: done.challenge, refundedCount: done.refunded, errors: [] };
  }

  return {
    typeDefs,
    resolvers: {
      CommunityChallenge: {
        id: (c: ChallengeRow) => c.publicId,
        status: (c: ChallengeRow) => challengeStatus(now(), c),
        community: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          deps.communities.loadCommunity(ctx, c.communityId),
        creator: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, c.creatorId),
        viewerParticipation: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          loadParticipation(ctx, c.id),
      },
      LeaderboardEntry: {
        user: (r: LeaderboardRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, r.userId),
      },
      ChallengeLeaderboard: {
        viewerEntry: async (
          board: { challenge: ChallengeRow },
          _: Args,
          ctx: GraphQLContext,
        ) => {
          const mine = await loadParticipation(ctx, board.challenge.id);
          return mine
            ? { ...mine, userId: requireViewer(ctx).userId, publicId: "", above: 0, atOrAbove: 0 }
            : null;
        },
      },
      CurrentUser: {
        points: async (u: { id: string }, _: Args, ctx: GraphQLContext) =>
          (await loadByKey(
            ctx,
            "pointBalance",
            (ids) => store.pointBalances(sql, ids),
            (r) => r.userId,
            u.id,
          ))?.balance ?? 0,
      },
      Query: {
        communityChallenge: async (_: unknown, args: { id: string }, ctx: GraphQLContext) =>
          (await readableChallenge(ctx, args.id))?.challenge ?? null,
        communityChallenges: async (
          _: unknown,
          args: PageArgs & { communityId: string },
          ctx: GraphQLContext,
        ) => {
          const found = await deps.communities.visibleCommunity(ctx, args.communityId);
          if (!found || !canRead(found.access)) return null;
          const { community } = found;
          return await paginate(
            args,
            ["string", "string"],
            (window) => store.challengePage(sql, community.id, window),
            (r) => [r.startsAt.toISOString(), r.publicId],
            { totalCount: () => store.challengeCount(sql, community.id) },
          );
        },
        communityChallengeLeaderboard: async (
          _: unknown,
          args: PageArgs & { challengeId: string },
          ctx: GraphQLContext,
        ) => {
          const found = await readableChallenge(ctx, args.challengeId);
          if (!found) return null;
          const { challenge } = found;
          const connection = await paginate(
            args,
            ["number", "string"],
            async (window) => {
              const rows = await store.leaderboardPage(sql, challenge.id, window);
              // Ranks follow the list's order (best first); a backward window reads it reversed.
              const best = window.backward ? [...rows].reverse() : rows;
              const ranks = pageRanks(
                best.map((r) => r.score),
                rows[0]?.above ?? 0,
                rows[0]?.atOrAbove ?? 0,
              );
              const ranked = best.map((r, i) => ({ ...r, rank: ranks[i] }));
              return window.backward ? ranked.reverse() : ranked;
            },
            (r) => [r.score, r.publicId],
            { totalCount: () => Promise.resolve(challenge.participantCount) },
          );
          return Object.assign(connection, { challenge });
        },
      },
      Mutation: {
        createCommunityChallenge: (_: unknown, args: Args, ctx: GraphQLContext) =>
          createChallenge(ctx, args),
        joinCommunityChallenge: (_: unknown, args: { challengeId: string }, ctx: GraphQLContext) =>
          joinChallenge(ctx, args.challengeId),
        leaveCommunityChallenge: (_: unknown, args: { challengeId: string }, ctx: GraphQLContext) =>
          leaveChallenge(ctx, args.challengeId),
        cancelCommunityChallenge: (
          _: unknown,
          args: { challengeId: string },
          ctx: GraphQLContext,
        ) => cancelChallenge(ctx, args.challengeId),
      },
    },
  };
}
