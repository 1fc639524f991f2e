/**
 * The service sets its resolvers on the schema itself (`attachResolvers`); graphql-tools'
 * `createSchema` (what yoga offers) is the reference: both must give the same schema, the same
 * resolver on every field and type, and the same scalar implementations.
 */
import assert from "node:assert/strict";
import {
  buildASTSchema,
  concatAST,
  GraphQLObjectType,
  GraphQLScalarType,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isUnionType,
  parse,
  printSchema,
} from "graphql";
import { createSchema } from "graphql-yoga";
import { buildSchema, schemaResolvers, schemaTypeDefs } from "../../src/graphql/schema-build.ts";
import { attachResolvers } from "../../src/graphql/resolvers.ts";
import { describeErrorCodes } from "../../src/graphql/error-codes.ts";
import { describePageArguments } from "../../src/graphql/page-arguments.ts";
import { currentModules } from "../../scripts/schema.ts";

const modules = currentModules();

function reference(): GraphQLSchema {
  const document = concatAST(schemaTypeDefs(modules).map((sdl) => parse(sdl)));
  const schema = createSchema({
    typeDefs: buildASTSchema(document, { assumeValidSDL: true }),
    resolvers: schemaResolvers(modules) as Parameters<typeof createSchema>[0]["resolvers"],
    updateResolversInPlace: true,
  });
  describeErrorCodes(schema, modules);
  describePageArguments(schema);
  return schema;
}

/** The resolvers the modules give for a field, as `{ resolve, subscribe }`. */
function resolversOf(typeName: string, fieldName: string) {
  const values = schemaResolvers(modules).flatMap((map) => {
    const value = (map[typeName] as Record<string, unknown> | undefined)?.[fieldName];
    return value === undefined ? [] : [value];
  });
  const value = values.at(-1);
  if (value === undefined) return undefined;
  return typeof value === "function"
    ? { resolve: value, subscribe: undefined }
    : value as { resolve?: unknown; subscribe?: unknown };
}

Deno.test("attachResolvers: the same schema, resolvers and scalars as graphql-tools", () => {
  const ours = buildSchema(modules);
  const theirs = reference();
  assert.equal(printSchema(ours), printSchema(theirs));
  let fields = 0;
  const ownTypes = Object.values(theirs.getTypeMap()).filter((t) => !t.name.startsWith("__"));
  for (const type of ownTypes) {
    const own = ours.getType(type.name)!;
    if (isObjectType(type) || isInterfaceType(type)) {
      const ownFields = (own as GraphQLObjectType).getFields();
      for (const [name, field] of Object.entries(type.getFields())) {
        // graphql-tools binds each resolver to its map (no resolver reads `this`): the same
        // fields have one, and ours is the map's own function.
        const given = resolversOf(type.name, name);
        assert.equal(Boolean(given?.resolve), Boolean(field.resolve), `${type.name}.${name}`);
        assert.equal(Boolean(ownFields[name].subscribe), Boolean(field.subscribe));
        assert.equal(
          ownFields[name].resolve,
          given?.resolve,
          `${type.name}.${name} resolve`,
        );
        assert.equal(ownFields[name].subscribe, given?.subscribe, `${type.name}.${name} subscribe`);
        if (field.resolve) fields++;
      }
    }
    if (isObjectType(type)) assert.equal((own as GraphQLObjectType).isTypeOf, type.isTypeOf);
    if (isInterfaceType(type) || isUnionType(type)) {
      assert.equal((own as typeof type).resolveType, type.resolveType, `${type.name} resolveType`);
    }
    if (isScalarType(type)) {
      const scalar = own as GraphQLScalarType;
      assert.equal(scalar.serialize, type.serialize, `${type.name} serialize`);
      assert.equal(scalar.parseValue, type.parseValue, `${type.name} parseValue`);
      assert.equal(scalar.parseLiteral, type.parseLiteral, `${type.name} parseLiteral`);
      assert.equal(scalar.specifiedByURL, type.specifiedByURL, `${type.name} specifiedByURL`);
    }
  }
  assert.ok(fields > 100, `${fields} fields with a resolver`);
  const activity = ours.getType("FeedActivity");
  assert.ok((isUnionType(activity) || isInterfaceType(activity)) && activity.resolveType);
});

Deno.test("attachResolvers: a type or field the schema lacks is an error", () => {
  const schema = () => buildASTSchema(parse("type Query { a: Int } scalar Day"));
  assert.throws(() => attachResolvers(schema(), [{ Querx: { a: () => 1 } }]), /"Querx"/);
  assert.throws(() => attachResolvers(schema(), [{ Query: { b: () => 1 } }]), /"Query\.b"/);
  const resolved = schema();
  const day = new GraphQLScalarType({ name: "Day", serialize: (v) => `day ${v}` });
  attachResolvers(resolved, [{ Query: { a: { resolve: () => 2 } } }, { Day: day }]);
  assert.equal(
    (resolved.getType("Query") as GraphQLObjectType).getFields().a.resolve!(
      {},
      {},
      {},
      // deno-lint-ignore no-explicit-any
      {} as any,
    ),
    2,
  );
  assert.equal((resolved.getType("Day") as GraphQLScalarType).serialize(1), "day 1");
});
