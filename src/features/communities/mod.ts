/**
 * Communities: discovery, membership, invites and posts (which reach members' feeds through the
 * feed feature), and what other features (challenges) may ask about a community.
 */
import type { GraphQLContext } from "../../graphql/context.ts";
import type { Feature } from "../feature.ts";
import type { CommunityAccess } from "./rules.ts";
import {
  type CommunitiesDeps,
  communitiesModule,
  communityAccess,
  loadCommunity,
  loadPost,
  readablePost,
  visibleCommunity,
} from "./schema.ts";
import type { CommunityRow, PostRow } from "./store.ts";
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
  const sql = deps.db.sql;
  return {
    name: "communities",
    personalData: communitiesPersonalData(deps.db.sql),
    graphql: communitiesModule(deps),
    api: {
      communityAccess: (ctx, id) => communityAccess(ctx, sql, id),
      visibleCommunity: (ctx, id) => visibleCommunity(ctx, sql, id),
      loadCommunity: (ctx, id) => loadCommunity(ctx, sql, id),
      readablePost: (ctx, id) => readablePost(ctx, deps, id),
      loadPost: (ctx, id) => loadPost(ctx, sql, id),
    },
  };
}
