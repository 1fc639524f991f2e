/** How a feature contributes to the one GraphQL schema. */
import type { Lookups } from "./lookups.ts";
import type { Resolvers } from "./resolvers.gen.ts";

/** A feature module's resolvers, typed from the SDL (`deno task resolvers`). */
export type { Resolvers };

/** Resolvers of any schema, keyed by type then field: what the schema builder attaches. */
export type ResolverMap = { [type: string]: object | undefined };

/**
 * A part of a schema for the schema builder. The features' modules are `GraphQLModule`s, whose
 * resolvers must fit the service's own SDL; tests build schemas of their own with this shape.
 */
export interface SchemaModule {
  typeDefs: string;
  resolvers?: ResolverMap;
  /** Root fields callable without a session token (spec 5.4). */
  publicFields?: string[];
  /**
   * The user-error codes each mutation of the module may answer in its payload's `errors`, from
   * the feature's closed set (`userErrorCodes`). The schema states them in the mutation's and the
   * payload's descriptions, and docs/error-codes.md lists them (`deno task docs:errors`).
   */
  errorCodes?: { [mutation: string]: readonly string[] };
  /** How to fetch the module's object types by public id for the viewer (src/graphql/lookups.ts). */
  lookups?: Lookups;
}

export interface GraphQLModule extends SchemaModule {
  resolvers?: Resolvers;
  /** Root fields callable without a session token (spec 5.4). */
  publicFields?: string[];
}

/** One module of several (a feature's schema split over files): SDL joined, resolvers per type. */
export function mergeModules(...modules: GraphQLModule[]): GraphQLModule {
  const resolvers: Record<string, object> = {};
  for (const module of modules) {
    for (const [type, fields] of Object.entries(module.resolvers ?? {})) {
      resolvers[type] = { ...resolvers[type], ...fields };
    }
  }
  return {
    typeDefs: modules.map((m) => m.typeDefs).join(""),
    errorCodes: Object.assign({}, ...modules.map((m) => m.errorCodes ?? {})),
    resolvers: resolvers as Resolvers,
    publicFields: modules.flatMap((m) => m.publicFields ?? []),
    lookups: Object.assign({}, ...modules.map((m) => m.lookups ?? {})),
  };
}

/** Shared types every feature may use (docs/graphql.md). */
export const baseTypeDefs = /* GraphQL */ `
  "Reads. Each field needs a signed-in caller (a session token) unless its description says it is public."
  type Query
  "Changes. Each answers a payload whose errors list what the caller can fix (empty on success); each needs a signed-in caller."
  type Mutation
  "Live updates over the WebSocket endpoint /cable; each needs a signed-in caller."
  type Subscription

  scalar DateTime @specifiedBy(url: "https://scalars.graphql.org/andimarek/date-time")
  scalar Date @specifiedBy(url: "https://scalars.graphql.org/andimarek/local-date")
  scalar JSON

  "Where a page of a connection sits in the list (Relay cursor connections)."
  type PageInfo {
    "Paging forward: whether items follow this page (after: endCursor reads them). Paging backward: true when the page was asked for before a cursor."
    hasNextPage: Boolean!
    "Paging forward: true when the page was asked for after a cursor. Paging backward: whether items come before this page (before: startCursor reads them)."
    hasPreviousPage: Boolean!
    "The cursor of the page's first item; null when the page is empty."
    startCursor: String
    "The cursor of the page's last item, the after of the next page; null when the page is empty."
    endCursor: String
  }

  "Why a mutation did not do what was asked; the same shape in every payload's errors."
  type UserError {
    "Machine-readable, lower snake_case (e.g. already_running, invalid, not_found)."
    code: String!
    "For people; may change between releases."
    message: String!
    "The argument at fault (its name, e.g. title), when one is."
    field: String
  }
`;

/**
 * The optional argument of every retry-safe mutation (docs/graphql.md, "Retrying mutations";
 * src/platform/idempotency.ts), with its description.
 */
export const IDEMPOTENCY_KEY_ARGUMENT = /* GraphQL */ `
    """
    Makes the request safe to retry: sent again with the same key and the same arguments within
    24 hours, it changes nothing more and answers what the first request answered; with other
    arguments it is refused (idempotency_key_reused). 1 to 64 visible ASCII characters, e.g. a
    UUID; a key belongs to the signed-in user and this mutation. A refused request keeps no key.
    """
    idempotencyKey: String`;

/**
 * Resolvers of a payload's `Boolean!` flags (`alreadyMember`, ...) that only some of the mutations
 * answering it set: a flag a payload does not carry is false.
 */
export function payloadFlags<N extends string>(
  ...names: N[]
): Record<N, (payload: { [K in N]?: boolean }) => boolean> {
  return Object.fromEntries(
    names.map((name) => [name, (payload: { [K in N]?: boolean }) => payload[name] ?? false]),
  ) as Record<N, (payload: { [K in N]?: boolean }) => boolean>;
}

/**
 * The SDL of a cursor connection of `node`: `<name>Connection { edges nodes pageInfo totalCount }`
 * and `<name>Edge { cursor node }` (`edgeFields` adds fields to the edge).
 */
export function connectionTypeDefs(
  node: string,
  options: { name?: string; totalCount?: boolean; edgeFields?: string; description?: string } = {},
): string {
  const name = options.name ?? node;
  const total = options.totalCount === false
    ? ""
    : `\n    "Every item of the list, all pages together."\n    totalCount: Int!`;
  const description = options.description ??
    `One page of a cursor-paged list of ${node} (first/after forward, last/before backward).`;
  return /* GraphQL */ `
  "${description}"
  type ${name}Connection {
    "The page's items with their cursors, in the list's order."
    edges: [${name}Edge!]!
    "The page's items in the list's order: edges without the cursors."
    nodes: [${node}!]!
    "Whether more items come before or after this page, and the cursors to read them."
    pageInfo: PageInfo!${total}
  }

  "One ${node} of a page, with its cursor."
  type ${name}Edge {
    "Opaque: pass it as after (or before) to read the items after (or before) this one."
    cursor: String!
    "The item."
    node: ${node}!${options.edgeFields ? `\n    ${options.edgeFields}` : ""}
  }
`;
}
