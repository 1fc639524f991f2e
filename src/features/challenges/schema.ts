/**
 * GraphQL for community challenges and points: `communityChallenge`, `communityChallenges`,
 * `communityChallengeLeaderboard`, `createCommunityChallenge`, `joinCommunityChallenge`,
 * `leaveCommunityChallenge`, `cancelCommunityChallenge`, `me.points`, and the points and scores
 * in the payloads of the mutations that change them, adapted to the service.
 */
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import type {
  AddGoalEventPayloadResolvers,
  ChallengeLeaderboardResolvers,
  CheckInHabitPayloadResolvers,
  CommunityChallengeResolvers,
  CurrentUserResolvers,
  GoalEventPayloadResolvers,
  LeaderboardEntryResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import type { ActivityRef } from "../goals/rules.ts";
import type { CheckInPayload } from "../goals/mod.ts";
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

  // Points and scores in the payloads of the mutations that change them, read after the
  // mutation's transaction committed (it credited them itself).
  const points = (_: unknown, __: unknown, ctx: GraphQLContext) =>
    service.currentPoints(deps, requireViewer(ctx).userId);
  const challengesOf = (ctx: GraphQLContext, activity: ActivityRef | null) =>
    service.challengesOfActivity(deps, actorOf(ctx), activity);
  const CheckInHabitPayload: CheckInHabitPayloadResolvers = {
    points,
    challenges: (p: CheckInPayload, _, ctx) =>
      challengesOf(
        ctx,
        p.checkIn && p.goal
          ? {
            kind: "check_in",
            checkInId: p.checkIn.publicId,
            goalId: p.goal.publicId,
            date: p.checkIn.day,
          }
          : null,
      ),
  };
  const eventPayload = {
    points,
    challenges: (p: { event: { publicId: string } | null }, _: unknown, ctx: GraphQLContext) =>
      challengesOf(ctx, p.event ? { kind: "goal_event", eventId: p.event.publicId } : null),
  };
  const AddGoalEventPayload: AddGoalEventPayloadResolvers = eventPayload;
  const GoalEventPayload: GoalEventPayloadResolvers = eventPayload;

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
      leaveCommunityChallenge: ["not_found", "ended"],
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
      CheckInHabitPayload,
      AddGoalEventPayload,
      GoalEventPayload,
      UndoCheckInPayload: { points },
      DeleteGoalPayload: { points },
      CommunityChallengePayload: { ...payloadFlags("alreadyJoined", "alreadyLeft"), points },
      CancelCommunityChallengePayload: { ...payloadFlags("alreadyCancelled"), points },
      Query,
      Mutation,
    },
  };
}
