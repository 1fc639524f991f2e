/**
 * GraphQL for community challenges and points: `communityChallenge`, `communityChallenges`,
 * `communityChallengeLeaderboard`, `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `cancelCommunityChallenge`, `me.points`, adapted to the service.
 */
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import type {
  ChallengeLeaderboardResolvers,
  CommunityChallengeResolvers,
  CurrentUserResolvers,
  LeaderboardEntryResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import { challengeStatus } from "./rules.ts";
import * as service from "./service.ts";
import type { Actor, ChallengeRow, ChallengesDeps, LeaderboardRow } from "./service.ts";
import { challengesTypeDefs } from "./typedefs.ts";

/** The service's actor of a request: its viewer (signed in) and its loaders. */
const actorOf = (ctx: GraphQLContext): Actor => ({
  userId: requireViewer(ctx).userId,
  loader: ctx.loader,
});

export function challengesModule(deps: ChallengesDeps): GraphQLModule {
  const CommunityChallenge: CommunityChallengeResolvers = {
    id: (c: ChallengeRow) => c.publicId,
    status: (c: ChallengeRow) => challengeStatus(deps.clock.now(), c),
    community: (c: ChallengeRow, _, ctx) => deps.communities.loadCommunity(ctx, c.communityId),
    creator: (c: ChallengeRow, _, ctx) => deps.users.loadUser(ctx, c.creatorId),
    viewerParticipation: (c: ChallengeRow, _, ctx) =>
      service.viewerParticipation(deps, actorOf(ctx), c.id),
  };

  const LeaderboardEntry: LeaderboardEntryResolvers = {
    user: (r: LeaderboardRow, _, ctx) => deps.users.loadUser(ctx, r.userId),
  };

  const ChallengeLeaderboard: ChallengeLeaderboardResolvers = {
    viewerEntry: async (board: { challenge: ChallengeRow }, _, ctx) => {
      const actor = actorOf(ctx);
      const mine = await service.viewerParticipation(deps, actor, board.challenge.id);
      return mine ? { ...mine, userId: actor.userId, publicId: "", above: 0, atOrAbove: 0 } : null;
    },
  };

  const CurrentUser: CurrentUserResolvers = {
    points: (u: { id: string }, _, ctx) => service.pointsOf(deps, ctx, u.id),
  };

  const Query: QueryResolvers = {
    communityChallenge: async (_, args, ctx) =>
      (await service.readableChallenge(deps, actorOf(ctx), args.id))?.challenge ?? null,
    communityChallenges: (_, args, ctx) => service.communityChallenges(deps, actorOf(ctx), args),
    communityChallengeLeaderboard: (_, args, ctx) => service.leaderboard(deps, actorOf(ctx), args),
  };

  const Mutation: MutationResolvers = {
    createCommunityChallenge: (_, args, ctx) =>
      service.createCommunityChallenge(deps, actorOf(ctx), args),
    joinCommunityChallenge: (_, args, ctx) =>
      service.joinCommunityChallenge(deps, actorOf(ctx), args),
    leaveCommunityChallenge: (_, args, ctx) =>
      service.leaveCommunityChallenge(deps, actorOf(ctx), args),
    cancelCommunityChallenge: (_, args, ctx) =>
      service.cancelCommunityChallenge(deps, actorOf(ctx), args),
  };

  return {
    typeDefs: challengesTypeDefs,
    errorCodes: {
      createCommunityChallenge: ["not_found", "not_member", "invalid", "idempotency_key_reused"],
      joinCommunityChallenge: [
        "not_found",
        "not_member",
        "cancelled",
        "ended",
        "insufficient_points",
      ],
      leaveCommunityChallenge: ["not_found", "ended", "not_participating"],
      cancelCommunityChallenge: ["not_found", "not_allowed", "already_started"],
    },
    lookups: {
      CommunityChallenge: async (id, ctx) =>
        (await service.readableChallenge(deps, actorOf(ctx), id))?.challenge ?? null,
    },
    resolvers: {
      CommunityChallenge,
      LeaderboardEntry,
      ChallengeLeaderboard,
      CurrentUser,
      CommunityChallengePayload: payloadFlags("alreadyJoined"),
      CancelCommunityChallengePayload: payloadFlags("alreadyCancelled"),
      Query,
      Mutation,
    },
  };
}
