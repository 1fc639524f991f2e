/**
 * Ally requests, ally connections and partnerships as Nodes (docs/graphql.md, "Object
 * identity"): `node(id:)` answers one to the two users it links only (the requests' lookups are
 * the partners module's own). An ally connection and the request it came from share a public id:
 * they are two Nodes, with two nodeIds.
 */
import { requireViewer } from "../../graphql/context.ts";
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import * as service from "./service.ts";
import type { LinkRow, PartnersDeps } from "./service.ts";

export function partnerNodesModule(deps: PartnersDeps): GraphQLModule {
  const publicId = (l: LinkRow) => l.publicId;
  return {
    ...nodeTypes({ AllyRequest: publicId, Ally: publicId, Partnership: publicId }),
    lookups: {
      Ally: (id, ctx) =>
        service.allyOf(deps, { userId: requireViewer(ctx).userId, loader: ctx.loader }, id),
    },
  };
}
