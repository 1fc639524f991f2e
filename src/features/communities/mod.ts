/**
 * Communities: discovery, membership, invites and posts (which reach members' feeds through the
 * feed feature), and what other features (challenges) may ask about a community.
 */
import type { Feature } from "../feature.ts";
import type { CommunityAccess } from "./rules.ts";
import * as service from "./service.ts";
import type { Actor, CommunitiesDeps, CommunityRow, PostRow, RequestLoaders } from "./service.ts";
import { communitiesModule } from "./schema.ts";
import { communityNodesModule } from "./nodes.ts";
import { mergeModules } from "../../graphql/module.ts";
import { communitiesPersonalData } from "./personal-data.ts";

export type { Actor, CommunitiesDeps, CommunityAccess, CommunityRow, PostRow, RequestLoaders };

export interface CommunitiesApi {
  /** The community (internal id) and what the actor may do in it; null when there is none. */
  communityAccess(
    actor: Actor,
    communityId: string,
  ): Promise<{ community: CommunityRow; access: CommunityAccess } | null>;
  /** The community of a public id the actor may see, or null (private ones included). */
  visibleCommunity(
    actor: Actor,
    publicId: unknown,
  ): Promise<{ community: CommunityRow; access: CommunityAccess } | null>;
  /**
   * The post of a public id the actor may read (its community readable, no block between the
   * actor and its author), or null. A request's context still stands for its viewer here.
   */
  readablePost(actor: Actor, publicId: unknown): Promise<PostRow | null>;
  /** A post by internal id through the request's DataLoader (for `CommunityPost` fields). */
  loadPost(request: RequestLoaders, id: string): Promise<PostRow | null>;
  /** A community by internal id through the request's DataLoader (for `Community` fields). */
  loadCommunity(request: RequestLoaders, id: string): Promise<CommunityRow | null>;
}

export function communitiesFeature(deps: CommunitiesDeps): Feature<CommunitiesApi> {
  return {
    name: "communities",
    personalData: communitiesPersonalData(deps.db.sql),
    graphql: mergeModules(communitiesModule(deps), communityNodesModule(deps)),
    api: {
      communityAccess: (actor, id) => service.communityAccess(deps, actor, id),
      visibleCommunity: (actor, id) => service.visibleCommunity(deps, actor, id),
      loadCommunity: (request, id) => service.loadCommunity(deps, request, id),
      readablePost: (actor, id) => service.readablePost(deps, actor, id),
      loadPost: (request, id) => service.loadPost(deps, request, id),
    },
  };
}
