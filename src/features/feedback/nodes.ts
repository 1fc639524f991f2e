/**
 * Feedback posts as Nodes (docs/graphql.md, "Object identity"): `node(id:)` answers a post to any
 * signed-in user, as `feedbackPost(id:)` does (the feedback module's lookup).
 */
import type { GraphQLModule } from "../../graphql/module.ts";
import { nodeTypes } from "../../graphql/node.ts";
import type { PostRow } from "./service.ts";

export const feedbackNodesModule = (): GraphQLModule =>
  nodeTypes({ FeedbackPost: (p: PostRow) => p.publicId });
