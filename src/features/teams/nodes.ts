/**
 * Teams as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers the viewer's own team
 * only, as `myTeam` shows it (the teams module's lookup).
 */
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import type { TeamRow } from "./service.ts";

export const teamNodesModule = (): GraphQLModule => nodeTypes({ Team: (t: TeamRow) => t.publicId });
