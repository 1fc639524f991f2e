/**
 * GraphQL for communities: `communities`, `community`, `communityFeed` and the mutations of
 * membership and posts, adapted to the service. Posts reach members' `unifiedFeed` through the
 * feed feature (audience `community:<id>`, followed on join).
 */
import { type GraphQLContext, requireViewer } from "../../graphql/context.ts";
import { type GraphQLModule, payloadFlags } from "../../graphql/module.ts";
import type {
  CommunityPostActivityResolvers,
  CommunityPostResolvers,
  CommunityResolvers,
  MutationResolvers,
  QueryResolvers,
} from "../../graphql/resolvers.gen.ts";
import * as service from "./service.ts";
import type { Actor, CommunitiesDeps, CommunityRow, PostRow } from "./service.ts";
import { communitiesTypeDefs } from "./typedefs.ts";

/** The service's actor of a request: its viewer (signed in) and its loaders. */
export function actorOf(ctx: GraphQLContext): Actor {
  const viewer = requireViewer(ctx);
  return { userId: viewer.userId, isAdmin: viewer.isAdmin, loader: ctx.loader };
}

export function communitiesModule(deps: CommunitiesDeps): GraphQLModule {
  const Community: CommunityResolvers = {
    id: (c: CommunityRow) => c.publicId,
    owner: (c: CommunityRow, _, ctx) => deps.users.loadUser(ctx, c.ownerId),
    viewerRole: async (c: CommunityRow, _, ctx) =>
      (await service.viewerRelation(deps, actorOf(ctx), c.id)).role,
    viewerInvited: async (c: CommunityRow, _, ctx) =>
      (await service.viewerRelation(deps, actorOf(ctx), c.id)).invited,
  };

  const CommunityPost: CommunityPostResolvers = {
    id: (p: PostRow) => p.publicId,
    author: (p: PostRow, _, ctx) => deps.users.loadUser(ctx, p.authorId),
    community: (p: PostRow, _, ctx) => service.loadCommunity(deps, ctx, p.communityId),
    editedAt: (p: PostRow) => p.editedAt?.toISOString() ?? null,
  };

  const CommunityPostActivity: CommunityPostActivityResolvers = {
    post: (a: { postId?: unknown }, _, ctx: GraphQLContext) =>
      typeof a.postId === "string" ? service.loadPost(deps, ctx, a.postId) : null,
    community: (a: { communityId?: unknown }, _, ctx: GraphQLContext) =>
      typeof a.communityId === "string" ? service.loadCommunity(deps, ctx, a.communityId) : null,
  };

  const Query: QueryResolvers = {
    communities: (_, args, ctx) =>
      service.communities(deps, actorOf(ctx), { ...args, scope: args.scope ?? "discover" }),
    community: async (_, args, ctx) =>
      (await service.visibleCommunity(deps, actorOf(ctx), args.id))?.community ?? null,
    communityFeed: (_, args, ctx) => service.communityFeed(deps, actorOf(ctx), args),
  };

  const Mutation: MutationResolvers = {
    createCommunity: (_, args, ctx) => service.createCommunity(deps, actorOf(ctx), args),
    joinCommunity: (_, args, ctx) => service.joinCommunity(deps, actorOf(ctx), args),
    leaveCommunity: (_, args, ctx) => service.leaveCommunity(deps, actorOf(ctx), args),
    inviteToCommunity: (_, args, ctx) => service.inviteToCommunity(deps, actorOf(ctx), args),
    transferCommunityOwnership: (_, args, ctx) =>
      service.transferCommunityOwnership(deps, actorOf(ctx), args),
    createCommunityPost: (_, args, ctx) => service.createCommunityPost(deps, actorOf(ctx), args),
    updateCommunityPost: (_, args, ctx) => service.updateCommunityPost(deps, actorOf(ctx), args),
    deleteCommunityPost: (_, args, ctx) => service.deleteCommunityPost(deps, actorOf(ctx), args),
  };

  return {
    typeDefs: communitiesTypeDefs,
    errorCodes: {
      createCommunity: ["invalid", "name_taken", "idempotency_key_reused"],
      joinCommunity: ["not_found", "invite_required", "community_full"],
      leaveCommunity: ["not_found", "owner_cannot_leave"],
      transferCommunityOwnership: ["not_found", "not_allowed", "invalid", "not_member", "conflict"],
      inviteToCommunity: ["not_found", "not_member", "invalid", "already_member"],
      createCommunityPost: [
        "not_found",
        "not_member",
        "invalid",
        "content_rejected",
        "idempotency_key_reused",
      ],
      updateCommunityPost: ["not_found", "invalid", "content_rejected", "not_allowed"],
      deleteCommunityPost: ["not_found", "not_allowed", "invalid", "idempotency_key_reused"],
    },
    resolvers: {
      Community,
      CommunityPayload: payloadFlags(
        "alreadyMember",
        "alreadyInvited",
        "alreadyOwner",
        "alreadyLeft",
      ),
      CommunityPost,
      CommunityPostActivity,
      Query,
      Mutation,
    },
    lookups: {
      Community: async (id, ctx) =>
        (await service.visibleCommunity(deps, actorOf(ctx), id))?.community ?? null,
    },
  };
}
