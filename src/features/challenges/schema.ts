/**
 * GraphQL for community challenges and points: `communityChallenge`, `communityChallenges`,
 * `communityChallengeLeaderboard`, `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `me.points`.
 */
import type { Database } from "../../platform/db.ts";
import type { Clock } from "../../platform/clock.ts";
import { looksLikePublicId } from "../../platform/ids.ts";
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { loadByKey } from "../../graphql/loaders.ts";
import { notFound } from "../../graphql/errors.ts";
import { paginate } from "../../graphql/pagination.ts";
import { parseInstant } from "../../platform/dates.ts";
import type { UsersApi } from "../users/mod.ts";
import type { CommunitiesApi } from "../communities/mod.ts";
import { canRead } from "../communities/rules.ts";
import {
  type ChallengeMetric,
  joinRefusal,
  joinWindowError,
  leaveRefusal,
  leaveWindowError,
  newChallengeErrors,
  pageRanks,
} from "./rules.ts";
import * as store from "./store.ts";
import type { ChallengeRow, LeaderboardRow, ParticipationRow } from "./store.ts";

export interface ChallengesDeps {
  db: Database;
  clock: Clock;
  users: Pick<UsersApi, "loadUser">;
  communities: Pick<CommunitiesApi, "communityAccess" | "visibleCommunity" | "loadCommunity">;
}

const typeDefs = /* GraphQL */ `
  "check_ins: one point of score per habit check-in. goal_event_value: the sum of progress event values on targets."
  enum ChallengeMetric { check_ins goal_event_value }

  type CommunityChallenge {
    id: ID!
    community: Community!
    creator: User!
    title: String!
    description: String
    metric: ChallengeMetric!
    startsAt: String!
    endsAt: String!
    "Points spent on joining (refunded on leaving before the end)."
    entryCost: Int!
    participantCount: Int!
    "The viewer's participation, or null."
    viewerParticipation: ChallengeParticipation
    createdAt: String!
  }

  type ChallengeParticipation {
    score: Float!
    "Standard competition rank (ties share a rank: 1, 2, 2, 4)."
    rank: Int!
    entryCostPaid: Int!
    joinedAt: String!
  }

  type LeaderboardEntry {
    rank: Int!
    score: Float!
    user: User!
    joinedAt: String!
  }

  type LeaderboardEdge {
    cursor: String!
    node: LeaderboardEntry!
  }

  type ChallengeLeaderboard {
    challenge: CommunityChallenge!
    edges: [LeaderboardEdge!]!
    pageInfo: PageInfo!
    "The viewer's own entry wherever it is, or null when not participating."
    viewerEntry: LeaderboardEntry
  }

  type CommunityChallengeEdge {
    cursor: String!
    node: CommunityChallenge!
  }

  type CommunityChallengeConnection {
    edges: [CommunityChallengeEdge!]!
    pageInfo: PageInfo!
  }

  type CommunityChallengePayload {
    challenge: CommunityChallenge
    errors: [String!]!
  }

  extend type CurrentUser {
    "Points: earned by check-ins (10) and progress events (5), spent on challenge entry costs."
    points: Int!
  }

  extend type Query {
    communityChallenge(id: String!): CommunityChallenge!
    "A community's challenges, latest start first."
    communityChallenges(communityId: String!, first: Int, after: String): CommunityChallengeConnection!
    "Ranked by score, best first (first: 0..100, default 20)."
    communityChallengeLeaderboard(challengeId: String!, first: Int, after: String): ChallengeLeaderboard!
  }

  extend type Mutation {
    "Members only. startsAt/endsAt are ISO 8601 date-times; entryCost in points (default 0)."
    createCommunityChallenge(
      communityId: String!
      title: String!
      description: String
      metric: ChallengeMetric!
      startsAt: String!
      endsAt: String!
      entryCost: Int
    ): CommunityChallengePayload!
    "Members only, between startsAt and endsAt; spends the entry cost."
    joinCommunityChallenge(challengeId: String!): CommunityChallengePayload!
    "Before the end: refunds the entry cost and clears the participant's progress."
    leaveCommunityChallenge(challengeId: String!): CommunityChallengePayload!
  }
`;

const iso = (d: Date) => d.toISOString();

type Args = Record<string, unknown>;

export function challengesModule(deps: ChallengesDeps): GraphQLModule {
  const sql = deps.db.sql;
  const now = () => deps.clock.now();

  /** The challenge of a public id whose community the viewer may read, or NOT_FOUND. */
  async function readableChallenge(ctx: GraphQLContext, id: unknown) {
    const challenge = typeof id === "string" && looksLikePublicId(id)
      ? await store.challengeByPublicId(sql, id)
      : null;
    const found = challenge
      ? await deps.communities.communityAccess(ctx, challenge.communityId)
      : null;
    if (!challenge || !found || !canRead(found.access)) throw notFound("challenge");
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

  const fail = (errors: string[]) => ({ challenge: null, errors });
  const reload = async (c: ChallengeRow) => ({
    challenge: await store.challengeByPublicId(sql, c.publicId),
    errors: [],
  });

  async function createChallenge(ctx: GraphQLContext, args: Args) {
    const viewer = requireViewer(ctx);
    const { community, access } = await deps.communities.visibleCommunity(ctx, args.communityId);
    if (access.role === null) return fail(["not_member: only members can create challenges"]);
    const input = {
      title: String(args.title ?? "").trim(),
      description: (args.description as string | null | undefined)?.trim() || null,
      startsAt: parseInstant(String(args.startsAt ?? "")),
      endsAt: parseInstant(String(args.endsAt ?? "")),
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
    const { challenge, access } = await readableChallenge(ctx, id);
    if (access.role === null) return fail(["not_member: only community members can join"]);
    const window = joinWindowError(now(), challenge.startsAt, challenge.endsAt);
    if (window) return fail([window]);
    const refusal = joinRefusal(
      await store.join(sql, challenge, viewer.userId, now()),
      challenge.entryCost,
    );
    return refusal ? fail([refusal]) : await reload(challenge);
  }

  async function leaveChallenge(ctx: GraphQLContext, id: unknown) {
    const viewer = requireViewer(ctx);
    const { challenge } = await readableChallenge(ctx, id);
    const window = leaveWindowError(now(), challenge.endsAt);
    if (window) return fail([window]);
    const refusal = leaveRefusal(await store.leave(sql, challenge, viewer.userId, now()));
    return refusal ? fail([refusal]) : await reload(challenge);
  }

  return {
    typeDefs,
    resolvers: {
      CommunityChallenge: {
        id: (c: ChallengeRow) => c.publicId,
        startsAt: (c: ChallengeRow) => iso(c.startsAt),
        endsAt: (c: ChallengeRow) => iso(c.endsAt),
        createdAt: (c: ChallengeRow) => iso(c.createdAt),
        community: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          deps.communities.loadCommunity(ctx, c.communityId),
        creator: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          deps.users.loadUser(ctx, c.creatorId),
        viewerParticipation: (c: ChallengeRow, _: Args, ctx: GraphQLContext) =>
          loadParticipation(ctx, c.id),
      },
      ChallengeParticipation: {
        joinedAt: (p: ParticipationRow) => iso(p.joinedAt),
      },
      LeaderboardEntry: {
        joinedAt: (r: LeaderboardRow) => iso(r.joinedAt),
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
          (await readableChallenge(ctx, args.id)).challenge,
        communityChallenges: async (
          _: unknown,
          args: { communityId: string; first?: number | null; after?: string | null },
          ctx: GraphQLContext,
        ) => {
          const { community, access } = await deps.communities.visibleCommunity(
            ctx,
            args.communityId,
          );
          if (!canRead(access)) throw notFound("community");
          return await paginate(
            args,
            ["string"],
            ({ limit, after }) => store.challengePage(sql, community.id, limit, after?.[0] ?? null),
            (r) => [r.publicId],
          );
        },
        communityChallengeLeaderboard: async (
          _: unknown,
          args: { challengeId: string; first?: number | null; after?: string | null },
          ctx: GraphQLContext,
        ) => {
          const { challenge } = await readableChallenge(ctx, args.challengeId);
          const connection = await paginate(
            args,
            ["number", "string"],
            async ({ limit, after }) => {
              const rows = await store.leaderboardPage(sql, challenge.id, limit, after);
              const ranks = pageRanks(
                rows.map((r) => r.score),
                rows[0]?.above ?? 0,
                rows[0]?.atOrAbove ?? 0,
              );
              return rows.map((r, i) => ({ ...r, rank: ranks[i] }));
            },
            (r) => [r.score, r.publicId],
          );
          return { challenge, ...connection };
        },
      },
      Mutation: {
        createCommunityChallenge: (_: unknown, args: Args, ctx: GraphQLContext) =>
          createChallenge(ctx, args),
        joinCommunityChallenge: (_: unknown, args: { challengeId: string }, ctx: GraphQLContext) =>
          joinChallenge(ctx, args.challengeId),
        leaveCommunityChallenge: (_: unknown, args: { challengeId: string }, ctx: GraphQLContext) =>
          leaveChallenge(ctx, args.challengeId),
      },
    },
  };
}
