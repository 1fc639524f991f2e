/**
 * GraphQL for community challenges and points: `communityChallenge`, `communityChallenges`,
 * `communityChallengeLeaderboard`, `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `cancelCommunityChallenge`, `me.points`, adapted to the service.
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
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
import type { ChallengeRow, ChallengesDeps, LeaderboardRow } from "./service.ts";
import { challengesTypeDefs } from "./typedefs.ts";

export function challengesModule(deps: ChallengesDeps): GraphQLModule {
  const CommunityChallenge: CommunityChallengeResolvers = {
    id: (c: ChallengeRow) => c.publicId,
    status: (c: ChallengeRow) => challengeStatus(deps.clock.now(), c),
    community: (c: ChallengeRow, _, ctx) => deps.communities.loadCommunity(ctx, c.communityId),
    creator: (c: ChallengeRow, _, ctx) => deps.users.loadUser(ctx, c.creatorId),
    viewerParticipation: (c: ChallengeRow, _, ctx) => service.viewerParticipation(deps, ctx, c.id),
  };

  const LeaderboardEntry: LeaderboardEntryResolvers = {
    user: (r: LeaderboardRow, _, ctx) => deps.users.loadUser(ctx, r.userId),
  };

  const ChallengeLeaderboard: ChallengeLeaderboardResolvers = {
    viewerEntry: async (board: { challenge: ChallengeRow }, _, ctx) => {
      const mine = await service.viewerParticipation(deps, ctx, board.challenge.id);
      return mine
        ? { ...mine, userId: requireViewer(ctx).userId, publicId: "", above: 0, atOrAbove: 0 }
        : null;
    },
  };

  const CurrentUser: CurrentUserResolvers = {
    points: (u: { id: string }, _, ctx) => service.pointsOf(deps, ctx, u.id),
  };

  const Query: QueryResolvers = {
    communityChallenge: async (_, args, ctx) =>
      (await service.readableChallenge(deps, ctx, args.id))?.challenge ?? null,
    communityChallenges: (_, args, ctx) => service.communityChallenges(deps, ctx, args),
    communityChallengeLeaderboard: (_, args, ctx) => service.leaderboard(deps, ctx, args),
  };

  const Mutation: MutationResolvers = {
    createCommunityChallenge: (_, args, ctx) => service.createCommunityChallenge(deps, ctx, args),
    joinCommunityChallenge: (_, args, ctx) => service.joinCommunityChallenge(deps, ctx, args),
    leaveCommunityChallenge: (_, args, ctx) => service.leaveCommunityChallenge(deps, ctx, args),
    cancelCommunityChallenge: (_, args, ctx) => service.cancelCommunityChallenge(deps, ctx, args),
  };

  return {
    typeDefs: challengesTypeDefs,
    errorCodes: {
      createCommunityChallenge: ["not_found", "not_member", "invalid"],
      joinCommunityChallenge: [
        "not_found",
        "not_member",
        "cancelled",
        "ended",
        "already_joined",
        "insufficient_points",
      ],
      leaveCommunityChallenge: ["not_found", "ended", "not_participating"],
      cancelCommunityChallenge: [
        "not_found",
        "not_allowed",
        "already_cancelled",
        "already_started",
      ],
    },
    resolvers: {
      CommunityChallenge,
      LeaderboardEntry,
      ChallengeLeaderboard,
      CurrentUser,
      Query,
      Mutation,
    },
  };
}
