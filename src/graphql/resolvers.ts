/**
 * Sets the modules' resolvers on a schema built from their type definitions, in place: a field's
 * `resolve` and `subscribe`, an abstract type's `__resolveType`, an object type's `__isTypeOf`, a
 * custom scalar's implementation. A name the schema lacks is an error, as a typo in a resolver map
 * would otherwise leave a field on the default resolver. This is what graphql-tools'
 * `addResolversToSchema` does for these maps, without merging them into one first (a test builds
 * the schema both ways and compares).
 */
import {
  type GraphQLFieldResolver,
  type GraphQLIsTypeOfFn,
  type GraphQLScalarType,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
} from "graphql";
import type { ResolverMap } from "./module.ts";

interface FieldResolvers {
  resolve?: GraphQLFieldResolver<unknown, unknown>;
  subscribe?: GraphQLFieldResolver<unknown, unknown>;
}

export function attachResolvers(schema: GraphQLSchema, maps: readonly ResolverMap[]): void {
  for (const map of maps) {
    for (const [typeName, resolvers] of Object.entries(map)) {
      const type = schema.getType(typeName);
      if (!type) throw new Error(`resolvers name the type "${typeName}", which the schema lacks`);
      if (isScalarType(type)) {
        setScalar(type, resolvers as GraphQLScalarType);
        continue;
      }
      if (!isObjectType(type) && !isInterfaceType(type) && !isUnionType(type)) {
        throw new Error(`resolvers for "${typeName}": a ${type.constructor.name} takes none`);
      }
      for (const [name, value] of Object.entries(resolvers as Record<string, unknown>)) {
        if (name === "__resolveType" && !isObjectType(type)) {
          type.resolveType = value as GraphQLTypeResolver<unknown, unknown>;
        } else if (name === "__isTypeOf" && isObjectType(type)) {
          type.isTypeOf = value as GraphQLIsTypeOfFn<unknown, unknown>;
        } else {
          const field = isUnionType(type) ? undefined : type.getFields()[name];
          if (!field) {
            throw new Error(
              `resolvers name the field "${typeName}.${name}", which the schema lacks`,
            );
          }
          if (typeof value === "function") {
            field.resolve = value as GraphQLFieldResolver<unknown, unknown>;
          } else {
            const { resolve, subscribe } = value as FieldResolvers;
            if (resolve) field.resolve = resolve;
            if (subscribe) field.subscribe = subscribe;
          }
        }
      }
    }
  }
}

/** A custom scalar takes its implementation and documentation from the scalar the module gives. */
function setScalar(type: GraphQLScalarType, scalar: GraphQLScalarType): void {
  type.description = scalar.description ?? type.description;
  type.specifiedByURL = scalar.specifiedByURL ?? type.specifiedByURL;
  type.serialize = scalar.serialize;
  type.parseValue = scalar.parseValue;
  type.parseLiteral = scalar.parseLiteral;
  type.extensions = { ...type.extensions, ...scalar.extensions };
}
