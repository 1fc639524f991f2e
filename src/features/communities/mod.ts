/**
 * Communities: discovery, membership, invites and posts (which reach members' feeds through the
 * feed feature), and what other features (challenges) may ask about a community.
 */
import type { GraphQLContext } from "../../graphql/context.ts";
import type { Feature } from "../feature.ts";
import type { CommunityAccess } from "./rules.ts";
import * as service from "./service.ts";
import type { CommunitiesDeps, CommunityRow, PostRow } from "./service.ts";
import { communitiesModule } from "./schema.ts";
import { communitiesPersonalData } from "./personal-data.ts";

export type { CommunitiesDeps, CommunityAccess, CommunityRow, PostRow };

export interface CommunitiesApi {
  /** The community (internal id) and what the viewer may do in it; null when there is none. */
  communityAccess(
    ctx: GraphQLContext,
    communityId: string,
  ): Promise<{ community: CommunityRow; access: CommunityAccess } | null>;
  /** The community of a public id the viewer may see, or null (private ones included). */
  visibleCommunity(
    ctx: GraphQLContext,
    publicId: unknown,
  ): Promise<{ community: CommunityRow; access: CommunityAccess } | null>;
  /**
   * The post of a public id the viewer may read (its community readable, no block between the
   * viewer and its author), or null.
   */
  readablePost(ctx: GraphQLContext, publicId: unknown): Promise<PostRow | null>;
  /** A post by internal id through the request's DataLoader (for `CommunityPost` fields). */
  loadPost(ctx: GraphQLContext, id: string): Promise<PostRow | null>;
  /** A community by internal id through the request's DataLoader (for `Community` fields). */
  loadCommunity(ctx: GraphQLContext, id: string): Promise<CommunityRow | null>;
}

export function communitiesFeature(deps: CommunitiesDeps): Feature<CommunitiesApi> {
  return {
    name: "communities",
    personalData: communitiesPersonalData(deps.db.sql),
    graphql: communitiesModule(deps),
    api: {
      communityAccess: (ctx, id) => service.communityAccess(deps, ctx, id),
      visibleCommunity: (ctx, id) => service.visibleCommunity(deps, ctx, id),
      loadCommunity: (ctx, id) => service.loadCommunity(deps, ctx, id),
      readablePost: (ctx, id) => service.readablePost(deps, ctx, id),
      loadPost: (ctx, id) => service.loadPost(deps, ctx, id),
    },
  };
}
