/**
 * Object identification (docs/graphql.md, "Object identity"): the `Node` interface, whose
 * `nodeId` is unique across every type, and `node(id:)`, which fetches any Node again. A nodeId is
 * the URL-safe base64 of `<Type>:<publicId>`, derived from the object's `id`, which keeps its
 * meaning (a publicId, unique within its type). A feature declares its Node types with
 * {@link nodeTypes}; `node(id:)` fetches them through the type's lookup (./lookups.ts), which
 * holds the feature's rule of who may see the object, so this module knows no feature.
 *
 * @example
 * ```ts
 * // in a feature's module
 * return mergeModules(module, nodeTypes({ Goal: (g: GoalRow) => g.publicId }));
 * ```
 */
import { type GraphQLResolveInfo, type GraphQLSchema, isObjectType } from "graphql";
import { decodeBase64Url, encodeBase64Url } from "../platform/base64url.ts";
import { looksLikePublicId } from "../platform/ids.ts";
import { type GraphQLContext, requireViewer } from "./context.ts";
import { badUserInput } from "./errors.ts";
import { hasLookup, lookUp } from "./lookups.ts";
import type { GraphQLModule, ResolverMap } from "./module.ts";

/** The longest string that can be a nodeId (a type name of 64 and a publicId of 64, encoded). */
const NODE_ID_MAX_LENGTH = 200;

/** The `Node` interface and `node(id:)`. */
export const nodeTypeDefs = /* GraphQL */ `
  """
  An object a client can cache and fetch again by one id (GraphQL Global Object Identification,
  with the id in nodeId): key a normalised cache by nodeId and refetch with node(id:).
  """
  interface Node {
    """
    Unique across every type and opaque: the cache key of the object, for node(id:). The
    object's id stays what it was, unique within its type, the id that other arguments take.
    """
    nodeId: ID!
  }

  extend type Query {
    """
    The object of a nodeId as the viewer may see it, under the same rules as the object's own
    query: null when there is none or the viewer may not see it (another user's private goal is
    null, like none). An id that is not a nodeId of this API (a type's id, say) is refused with
    BAD_USER_INPUT on this field alone.
    """
    node(
      "A nodeId this API answered."
      id: ID!
    ): Node
  }
`;

/** The nodeId of the object of `typeName` whose id is `publicId`. */
export function encodeNodeId(typeName: string, publicId: string): string {
  return encodeBase64Url(new TextEncoder().encode(`${typeName}:${publicId}`));
}

/** The type name and public id a nodeId stands for; null when it is not one this API answers. */
export function decodeNodeId(nodeId: string): { typeName: string; publicId: string } | null {
  if (nodeId.length > NODE_ID_MAX_LENGTH || !/^[A-Za-z0-9_-]+$/.test(nodeId)) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(decodeBase64Url(nodeId));
  } catch {
    return null;
  }
  const match = /^([A-Z][A-Za-z0-9]{0,63}):(.*)$/s.exec(text);
  if (!match || !looksLikePublicId(match[2])) return null;
  const [, typeName, publicId] = match;
  // One spelling per object: base64 can say the same bytes with other trailing bits.
  return encodeNodeId(typeName, publicId) === nodeId ? { typeName, publicId } : null;
}

/**
 * The Node part of a feature's schema: each type named implements `Node`, in an SDL block of its
 * own (`extend type X implements Node`), with its nodeId derived from the public id the function
 * reads from the type's row. Each type needs a lookup in the feature's module as well.
 */
export function nodeTypes(
  publicIds: { [typeName: string]: (row: never) => string },
): GraphQLModule {
  const typeDefs = Object.keys(publicIds).map((name) => /* GraphQL */ `
  extend type ${name} implements Node {
    "Unique across every type and opaque: the cache key of this object, for node(id:)."
    nodeId: ID!
  }
`).join("");
  const resolvers = Object.fromEntries(
    Object.entries(publicIds).map(([name, publicIdOf]) => [
      name,
      { nodeId: (row: unknown) => encodeNodeId(name, (publicIdOf as (r: unknown) => string)(row)) },
    ]),
  );
  return { typeDefs, resolvers: resolvers as GraphQLModule["resolvers"] };
}

/** The Node type of each object `node(id:)` answered (read by `Node.__resolveType`). */
const nodeTypeNames = new WeakMap<object, string>();

function isNodeType(schema: GraphQLSchema, typeName: string): boolean {
  const type = schema.getType(typeName);
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === "Node");
}

async function node(
  _root: unknown,
  args: { id: string },
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<object | null> {
  requireViewer(ctx);
  const decoded = decodeNodeId(args.id);
  if (!decoded || !isNodeType(info.schema, decoded.typeName)) {
    throw badUserInput('Argument "id": not a node id');
  }
  const found = await lookUp(info, decoded.typeName, decoded.publicId, ctx);
  if (found === null || typeof found !== "object") return null;
  // A copy: the lookup's row may be one a request's loader shares with other fields.
  const answer = Object.assign(Object.create(Object.getPrototypeOf(found)), found) as object;
  nodeTypeNames.set(answer, decoded.typeName);
  return answer;
}

/** The resolvers of `Node` and `node(id:)`. */
export const nodeResolvers: ResolverMap = {
  Node: { __resolveType: (object: object) => nodeTypeNames.get(object) ?? null },
  Query: { node },
};

/**
 * Refuses a schema in which a Node type cannot be fetched by `node(id:)` (no lookup) or has no
 * nodeId resolver: the default resolver would answer null for a non-null field.
 */
export function assertNodesFetchable(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !isNodeType(schema, type.name)) continue;
    if (!hasLookup(schema, type.name)) {
      throw new Error(`the Node type "${type.name}" has no lookup`);
    }
    if (!type.getFields().nodeId.resolve) {
      throw new Error(`the Node type "${type.name}" has no nodeId resolver`);
    }
  }
}
