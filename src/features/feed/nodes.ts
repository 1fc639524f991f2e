/**
 * Feed items as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers an item that the
 * viewer's `unifiedFeed` holds: their own, or one of an audience they follow whose actor no block
 * separates from them.
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import * as service from "./service.ts";
import type { FeedDeps, FeedItemRow } from "./service.ts";

export function feedNodesModule(deps: FeedDeps): GraphQLModule {
  return {
    ...nodeTypes({ FeedItem: (i: FeedItemRow) => i.publicId }),
    lookups: { FeedItem: (id, ctx) => service.visibleFeedItem(deps, requireViewer(ctx), id) },
  };
}
