/**
 * Users as Nodes (docs/graphql.md, "Object identity"): a User is fetched by `node(id:)` unless a
 * block separates it from the viewer, and the signed-in user (`CurrentUser`) answers the nodeId of
 * the same person as a User, so a client cache keeps one record of them.
 */
import { requireViewer } from "../../graphql/context.ts";
import { type GraphQLModule, mergeModules } from "../../graphql/module.ts";
import { encodeNodeId, nodeTypes } from "../../graphql/node.ts";
import type { CurrentUserResolvers } from "../../graphql/resolvers.gen.ts";
import * as service from "./service.ts";
import type { UserRow, UsersServiceDeps } from "./service.ts";

const typeDefs = /* GraphQL */ `
  extend type CurrentUser {
    """
    The nodeId of this user as a User (node(id:) answers the User): the same cache key, so a
    client cache that keys objects by nodeId keeps one record of the person, and what updateMe
    changes shows wherever the user appears as a User.
    """
    nodeId: ID!
  }
`;

const CurrentUser: CurrentUserResolvers = {
  nodeId: (u: UserRow) => encodeNodeId("User", u.publicId),
};

export function userNodesModule(deps: Pick<UsersServiceDeps, "db">): GraphQLModule {
  return mergeModules(nodeTypes({ User: (u: UserRow) => u.publicId }), {
    typeDefs,
    resolvers: { CurrentUser },
    lookups: { User: (id, ctx) => service.visibleUser(deps, requireViewer(ctx), id) },
  });
}
