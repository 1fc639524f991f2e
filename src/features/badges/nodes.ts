/**
 * Badges as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers the viewer's own
 * badges only, as `me.badges` lists them (the badges module's lookup).
 */
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import type { BadgeRow } from "./service.ts";

export const badgeNodesModule = (): GraphQLModule =>
  nodeTypes({ Badge: (b: BadgeRow) => b.publicId });
