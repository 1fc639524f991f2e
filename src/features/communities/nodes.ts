/**
 * Communities and their posts as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers
 * a community the viewer may see (as `community(id:)` does; its lookup is the communities
 * module's own) and a post the viewer may read (its community readable, no block between the
 * viewer and its author, as in `communityFeed`).
 */
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import { actorOf } from "./schema.ts";
import * as service from "./service.ts";
import type { CommunitiesDeps, CommunityRow, PostRow } from "./service.ts";

export function communityNodesModule(deps: CommunitiesDeps): GraphQLModule {
  return {
    ...nodeTypes({
      Community: (c: CommunityRow) => c.publicId,
      CommunityPost: (p: PostRow) => p.publicId,
    }),
    lookups: { CommunityPost: (id, ctx) => service.readablePost(deps, actorOf(ctx), id) },
  };
}
