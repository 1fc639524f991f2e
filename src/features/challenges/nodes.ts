/**
 * Community challenges as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers a
 * challenge the viewer may read, as `communityChallenge(id:)` does (the challenges module's lookup).
 */
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import type { ChallengeRow } from "./service.ts";

export const challengeNodesModule = (): GraphQLModule =>
  nodeTypes({ CommunityChallenge: (c: ChallengeRow) => c.publicId });
