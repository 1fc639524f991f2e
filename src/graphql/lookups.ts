/**
 * Lookups: how to fetch one object of a type by its public id, as the request's viewer may see it
 * (null when there is none or the viewer may not see it). A module declares them for the types it
 * owns (`SchemaModule.lookups`); a field that points at objects of several types by id
 * (`Notification.subject`) fetches them here, without knowing the features that own them.
 *
 * @example
 * ```ts
 * // in a module: lookups: { Community: (id, ctx) => visibleCommunity(ctx, id) }
 * const community = await lookUp(info, "Community", "k3J...", ctx);
 * ```
 */
import type { GraphQLResolveInfo, GraphQLSchema } from "graphql";
import type { GraphQLContext } from "./context.ts";

/** Fetches one object of a type by its public id for the request's viewer; null: none. */
export type Lookup = (id: string, ctx: GraphQLContext) => unknown | Promise<unknown>;

/** Lookups by GraphQL object type name. */
export type Lookups = { [typeName: string]: Lookup };

/** Keeps each type's lookup in its `extensions`, where {@link lookUp} finds it. */
export function attachLookups(schema: GraphQLSchema, all: readonly Lookups[]): void {
  for (const lookups of all) {
    for (const [name, lookup] of Object.entries(lookups)) {
      const type = schema.getType(name);
      if (!type) throw new Error(`a lookup names the type "${name}", which the schema lacks`);
      type.extensions = { ...type.extensions, lookup };
    }
  }
}

/** Whether the schema can fetch objects of `typeName` by id. */
export function hasLookup(schema: GraphQLSchema, typeName: string): boolean {
  return typeof schema.getType(typeName)?.extensions?.lookup === "function";
}

/** The object of `typeName` with this public id as the viewer may see it; null: none. */
export async function lookUp(
  info: Pick<GraphQLResolveInfo, "schema">,
  typeName: string,
  id: string,
  ctx: GraphQLContext,
): Promise<unknown> {
  const lookup = info.schema.getType(typeName)?.extensions?.lookup as Lookup | undefined;
  if (!lookup) throw new Error(`no lookup for the type "${typeName}"`);
  return (await lookup(id, ctx)) ?? null;
}
