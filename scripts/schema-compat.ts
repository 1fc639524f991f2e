/**
 * The schema compatibility rule (docs/graphql.md): between a released schema and the current one,
 * every breaking change `@graphql-inspector/core` finds must remove something that the release
 * had already deprecated. Returns the changes that break that rule, in words.
 */
import { diff } from "@graphql-inspector/core";
import {
  buildSchema,
  getNamedType,
  type GraphQLField,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from "graphql";

export async function unapprovedBreakingChanges(
  released: string,
  current: string,
): Promise<string[]> {
  const before = buildSchema(released);
  const changes = await diff(before, buildSchema(current));
  return changes
    .filter((c) => c.criticality.level === "BREAKING")
    .filter((c) => !deprecatedIn(before, c.type, c.path ?? ""))
    .map((c) => `${c.path ?? "schema"}: ${c.message}`);
}

/** Whether the element a change removes was deprecated in the released schema. */
function deprecatedIn(schema: GraphQLSchema, type: string, path: string): boolean {
  const [typeName, member, argument] = path.split(".");
  const named = schema.getType(typeName);
  switch (type) {
    case "FIELD_REMOVED":
      return Boolean(fieldOf(schema, typeName, member)?.deprecationReason);
    case "FIELD_ARGUMENT_REMOVED":
      return Boolean(
        fieldOf(schema, typeName, member)?.args.find((a) => a.name === argument)?.deprecationReason,
      );
    case "ENUM_VALUE_REMOVED":
      return isEnumType(named) && Boolean(named.getValue(member)?.deprecationReason);
    case "INPUT_FIELD_REMOVED":
      return isInputObjectType(named) && Boolean(named.getFields()[member]?.deprecationReason);
    case "TYPE_REMOVED":
      return everyUseDeprecated(schema, typeName);
    default:
      return false;
  }
}

function fieldOf(
  schema: GraphQLSchema,
  type: string,
  field: string,
): GraphQLField<unknown, unknown> | undefined {
  const named = schema.getType(type);
  return isObjectType(named) || isInterfaceType(named) ? named.getFields()[field] : undefined;
}

/** A type may go once every field that returned it was deprecated (and so goes with it). */
function everyUseDeprecated(schema: GraphQLSchema, typeName: string): boolean {
  let used = false;
  for (const named of Object.values(schema.getTypeMap())) {
    if (!isObjectType(named) && !isInterfaceType(named)) continue;
    for (const field of Object.values(named.getFields())) {
      if (getNamedType(field.type).name !== typeName) continue;
      used = true;
      if (!field.deprecationReason) return false;
    }
  }
  return used;
}
