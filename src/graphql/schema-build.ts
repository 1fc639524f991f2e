/** The one executable schema of every feature module. */
import { buildASTSchema, concatAST, type GraphQLSchema, parse } from "graphql";
import { baseTypeDefs, type ResolverMap, type SchemaModule } from "./module.ts";
import { attachResolvers } from "./resolvers.ts";
import { describeErrorCodes } from "./error-codes.ts";
import { attachLookups } from "./lookups.ts";
import { describePageArguments } from "./page-arguments.ts";
import { scalarResolvers } from "./scalars.ts";
import { assertNodesFetchable, nodeResolvers, nodeTypeDefs } from "./node.ts";

/** The type definitions of the schema of `modules`, the shared ones first. */
export function schemaTypeDefs(modules: SchemaModule[]): string[] {
  return [baseTypeDefs, nodeTypeDefs, ...modules.map((m) => m.typeDefs)];
}

/** Every module's resolvers, the shared scalars and `node(id:)` first. */
export function schemaResolvers(modules: SchemaModule[]): ResolverMap[] {
  return [
    scalarResolvers,
    nodeResolvers,
    ...modules.flatMap((m) => (m.resolvers ? [m.resolvers] : [])),
  ];
}

/**
 * The one schema of every module, with its resolvers. The type definitions are parsed and built by
 * graphql-js in one pass, without SDL validation (`assumeValidSDL`; the schema test builds the
 * same definitions with it), and the resolvers are set on that schema in place
 * (`attachResolvers`): graphql-tools' default merges the definitions and then copies the whole
 * schema, and even in place it merges the resolver maps first (a sixth of the build).
 */
export function buildSchema(modules: SchemaModule[]): GraphQLSchema {
  const document = concatAST(
    schemaTypeDefs(modules).map((sdl) => parse(sdl, { noLocation: true })),
  );
  const schema = buildASTSchema(document, { assumeValidSDL: true });
  attachResolvers(schema, schemaResolvers(modules));
  describeErrorCodes(schema, modules);
  describePageArguments(schema);
  attachLookups(schema, modules.flatMap((m) => (m.lookups ? [m.lookups] : [])));
  assertNodesFetchable(schema);
  return schema;
}
