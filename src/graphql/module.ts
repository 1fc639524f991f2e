/** How a feature contributes to the one GraphQL schema. */
// deno-lint-ignore no-explicit-any
export type Resolvers = Record<string, any>;

export interface GraphQLModule {
  typeDefs: string;
  resolvers?: Resolvers;
  /** Root fields callable without a session token (spec 5.4). */
  publicFields?: string[];
}

/** Shared types every feature may use. */
export const baseTypeDefs = /* GraphQL */ `
  type Query
  type Mutation
  type Subscription

  "Relay-style page information for cursor connections."
  type PageInfo {
    hasNextPage: Boolean!
    endCursor: String
  }
`;
