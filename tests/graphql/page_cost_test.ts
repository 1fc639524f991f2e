/** The query cost with the page sizes served (src/graphql/page-cost.ts), on a small schema. */
import assert from "node:assert/strict";
import { buildSchema, parse, print } from "graphql";
import { operationCost, withPageSizes } from "../../src/graphql/page-cost.ts";

const schema = buildSchema(/* GraphQL */ `
  type Query { items(first: Int, last: Int, after: String): ItemConnection! tags(first: Int): [String!]! }
  type ItemConnection { edges: [ItemEdge!]! nodes: [Item!]! pageInfo: PageInfo! }
  type ItemEdge { cursor: String! node: Item! }
  type PageInfo { hasNextPage: Boolean! }
  type Item { id: ID! parts(first: Int): ItemConnection! }
`);

const cost = (query: string, variables: Record<string, unknown> = {}) =>
  operationCost(schema, parse(query), variables).cost;

Deno.test("page cost: a variable page size costs what the same literal does", () => {
  const literal = cost(`{ items(first: 50) { nodes { id parts(first: 7) { nodes { id } } } } }`);
  const variable = cost(
    `query($a: Int, $b: Int) { items(first: $a) { nodes { id parts(first: $b) { nodes { id } } } } }`,
    { a: 50, b: 7 },
  );
  assert.equal(variable, literal);
  assert.ok(literal > cost(`{ items(first: 5) { nodes { id } } }`));
});

Deno.test("page cost: an absent size is the default page, sizes are clamped to 1..100", () => {
  assert.equal(cost(`{ items { nodes { id } } }`), cost(`{ items(first: 20) { nodes { id } } }`));
  assert.equal(
    cost(`{ items(last: 5000) { nodes { id } } }`),
    cost(`{ items(first: 100) { nodes { id } } }`),
  );
  assert.equal(
    cost(`{ items(first: 0) { nodes { id } } }`),
    cost(`{ items(first: 1) { nodes { id } } }`),
  );
  assert.equal(
    cost(`query($n: Int) { items(first: $n) { nodes { id } } }`, { n: null }),
    cost(`{ items { nodes { id } } }`),
  );
});

Deno.test("page cost: only connection fields are sized; other arguments are kept", () => {
  const { document, fromVariables } = withPageSizes(
    schema,
    parse(`query($c: String) { items(after: $c) { nodes { id } } tags(first: 3) }`),
    { c: "x" },
  );
  assert.equal(fromVariables, false);
  assert.match(print(document), /items\(first: 20, after: \$c\)/);
  assert.match(print(document), /tags\(first: 3\)/);
  assert.equal(
    withPageSizes(schema, parse(`query($n: Int) { items(first: $n) { nodes { id } } }`), {})
      .fromVariables,
    true,
  );
});
