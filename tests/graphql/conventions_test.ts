/**
 * The conventions of docs/graphql.md, checked on the schema the service builds: a new field that
 * breaks one fails here rather than in a client.
 */
import assert from "node:assert/strict";
import {
  buildSchema,
  getNamedType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  isEnumType,
  isNonNullType,
  isObjectType,
} from "graphql";
import { currentSchema } from "../../scripts/schema.ts";

const schema = buildSchema(currentSchema());
const ownTypes = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith("__"));
const objects = ownTypes.filter(isObjectType);

function everyField(): (readonly [GraphQLObjectType, GraphQLField<unknown, unknown>])[] {
  return objects.flatMap((type) => Object.values(type.getFields()).map((f) => [type, f] as const));
}

const named = (field: GraphQLField<unknown, unknown>): GraphQLNamedType => getNamedType(field.type);

Deno.test("conventions: every enum value is lower snake_case", () => {
  const wrong = ownTypes.filter(isEnumType).flatMap((e) =>
    e.getValues().filter((v) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(v.name)).map((v) =>
      `${e.name}.${v.name}`
    )
  );
  assert.deepEqual(wrong, []);
});

Deno.test("conventions: instants are DateTime and no argument takes an ID", () => {
  const instants = everyField()
    .filter(([, f]) => /[a-z]At$/.test(f.name) && named(f).name !== "DateTime")
    .map(([t, f]) => `${t.name}.${f.name}: ${f.type}`);
  assert.deepEqual(instants, []);
  const idArgs = everyField().flatMap(([t, f]) =>
    f.args.filter((a) => getNamedType(a.type).name === "ID").map((a) =>
      `${t.name}.${f.name}(${a.name})`
    )
  );
  // The one exception: Global Object Identification's node(id: ID!).
  assert.deepEqual(idArgs, ["Query.node(id)"]);
  const ids = everyField()
    .filter(([, f]) => (f.name === "id" || f.name.endsWith("Id")) && named(f).name !== "ID")
    .map(([t, f]) => `${t.name}.${f.name}: ${f.type}`);
  assert.deepEqual(ids, []);
});

Deno.test("conventions: every mutation answers a payload with errors: [UserError!]!", () => {
  const wrong = Object.values(schema.getMutationType()!.getFields()).filter((m) => {
    const payload = named(m);
    if (!isObjectType(payload) || !isNonNullType(m.type)) return true;
    return String(payload.getFields().errors?.type) !== "[UserError!]!";
  }).map((m) => `${m.name}: ${m.type}`);
  assert.deepEqual(wrong, []);
});

Deno.test("conventions: a lookup by id is nullable", () => {
  const wrong = Object.values(schema.getQueryType()!.getFields())
    .filter((q) => q.args.some((a) => a.name === "id") && isNonNullType(q.type))
    .map((q) => `${q.name}: ${q.type}`);
  assert.deepEqual(wrong, []);
});

Deno.test("conventions: paged fields are cursor connections paging both ways", () => {
  const isConnection = (t: GraphQLNamedType) =>
    isObjectType(t) && "edges" in t.getFields() && "pageInfo" in t.getFields();
  const wrong: string[] = [];
  for (const [type, field] of everyField()) {
    const args = field.args.map((a) => a.name);
    const result = named(field);
    if (isConnection(result) || result.name.endsWith("Connection")) {
      for (const arg of ["first", "after", "last", "before"]) {
        if (!args.includes(arg)) wrong.push(`${type.name}.${field.name} lacks ${arg}`);
      }
      const fields = isObjectType(result) ? Object.keys(result.getFields()) : [];
      for (const part of ["edges", "nodes", "pageInfo"]) {
        if (!fields.includes(part)) wrong.push(`${result.name} lacks ${part}`);
      }
    } else if (args.includes("first") || args.includes("limit")) {
      wrong.push(`${type.name}.${field.name} pages a plain list`);
    }
  }
  assert.deepEqual(wrong, []);
});
