import assert from "node:assert/strict";
import { getNamedType, GraphQLObjectType, isObjectType } from "graphql";
import { logged, type TestApp } from "../support/app.ts";
import { dataOf, gql, gqlRaw } from "../support/graphql.ts";
import { setup } from "../support/setup.ts";
import { startFakeServer } from "../support/http.ts";
import { type GraphQLContext, requireViewer } from "../../src/graphql/context.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";
import { loadUser } from "../../src/features/users/service.ts";

/** A module that exercises the core: deep types, a failing resolver, and N items with owners. */
function probeModule(t: () => TestApp): SchemaModule {
  return {
    typeDefs: `
      type Nested { value: Int! child: Nested }
      type Item { id: ID! owner: User! }
      extend type Query {
        nested: Nested!
        broken: String
        items(n: Int!): [Item!]!
        ping: String!
      }`,
    resolvers: {
      Nested: { value: () => 1, child: () => ({}) },
      Query: {
        nested: () => ({}),
        broken: () => {
          throw new Error("connection string postgres://secret@db leaked");
        },
        ping: () => "pong",
        items: (_: unknown, args: { n: number }, ctx: GraphQLContext) =>
          Array.from(
            { length: args.n },
            (_, i) => ({ id: `item-${i}`, ownerId: requireViewer(ctx).userId }),
          ),
      },
      Item: {
        owner: (item: { ownerId: string }, _: unknown, ctx: GraphQLContext) =>
          loadUser(ctx, t().deps.db.sql, item.ownerId),
      },
    },
    publicFields: ["nested", "ping", "broken"],
  };
}

/** The shared setup with the probe module; `token` is the session of `user-1`. */
async function setupCore(env: Record<string, string> = {}) {
  const holder: { t?: TestApp } = {};
  const s = await setup({
    env,
    user: "user-1",
    app: { extraModules: [probeModule(() => holder.t!)] },
  });
  holder.t = s.t;
  return { t: s.t, idp: s.idp, token: await s.token(), close: s.close };
}

const deep = (levels: number) =>
  `{ nested { ${"child { ".repeat(levels)}value${" }".repeat(levels)} } }`;

Deno.test("graphql: a JSON array is a batch answered in order; names are logged joined", async () => {
  const ctx = await setupCore();
  try {
    const res = await gqlRaw(ctx.t, [
      { query: "query First { ping }" },
      { query: "{ a: ping }" },
      { query: "query Third($x: Int!) { items(n: $x) { id } }", variables: { x: 1 } },
    ], { token: ctx.token });
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body));
    assert.deepEqual(res.body[0].data, { ping: "pong" });
    assert.deepEqual(res.body[1].data, { a: "pong" });
    assert.deepEqual(res.body[2].data, { items: [{ id: "item-0" }] });
    const entry = logged(ctx.t.log, "request").at(-1)!;
    assert.equal(entry.graphql_operation, "First,anonymous,Third");
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: batches over 10 operations are refused with a clear error", async () => {
  const ctx = await setupCore();
  try {
    const res = await gqlRaw(ctx.t, Array.from({ length: 11 }, () => ({ query: "{ ping }" })));
    assert.ok(res.status >= 400, `status ${res.status}`);
    const message = JSON.stringify(res.body);
    assert.match(message, /limited to 10/i);
    const ok = await gqlRaw(ctx.t, Array.from({ length: 10 }, () => ({ query: "{ ping }" })));
    assert.equal(ok.status, 200);
    assert.equal(ok.body.length, 10);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: operation names reach the request log (named and anonymous)", async () => {
  const ctx = await setupCore();
  try {
    await gql(ctx.t, "query Pinger { ping }");
    await gql(ctx.t, "{ ping }");
    const entries = logged(ctx.t.log, "request").slice(-2);
    assert.deepEqual(entries.map((e) => e.graphql_operation), ["Pinger", "anonymous"]);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: depth over 12 is refused with BAD_USER_INPUT; 12 passes", async () => {
  const ctx = await setupCore();
  try {
    assert.equal((await gql(ctx.t, deep(10))).status, 200);
    const res = await gql(ctx.t, deep(13));
    assert.equal(res.body.data, undefined);
    assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT");
    assert.match(res.body.errors[0].message, /depth/i);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: too many aliases are refused", async () => {
  const ctx = await setupCore();
  try {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: ping`).join(" ")} }`;
    assert.equal((await gql(ctx.t, aliases(15))).status, 200);
    const res = await gql(ctx.t, aliases(16));
    assert.match(res.body.errors[0].message, /alias/i);
    assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT");
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: query cost counts the page sizes served, literal or variable", async () => {
  const ctx = await setupCore({});
  try {
    const nested = (goals: string, events: string) =>
      `{ goals${goals} { nodes { id title events${events} { nodes { id value occurredAt } } } } }`;
    const refused = [
      await gql(ctx.t, nested("(first: 100)", "(first: 100)"), {}, { token: ctx.token }),
      await gql(
        ctx.t,
        `query($g: Int, $e: Int) { goals(first: $g) { nodes { id title
          events(first: $e) { nodes { id value occurredAt } } } } }`,
        { g: 100, e: 100 },
        { token: ctx.token },
      ),
      await gql(ctx.t, nested("(last: 100)", "(first: 60)"), {}, { token: ctx.token }),
    ];
    for (const res of refused) {
      assert.equal(res.body.data, undefined, JSON.stringify(res.body).slice(0, 200));
      assert.match(res.body.errors[0].message, /^Query Cost limit of 50000 exceeded, found \d+/);
      assert.equal(res.body.errors[0].extensions.code, "BAD_USER_INPUT");
    }
    // A screen of the default page sizes, and a long list of short ones, are served.
    for (const query of [nested("", ""), nested("(first: 100)", "(first: 5)")]) {
      const res = await gql(ctx.t, query, {}, { token: ctx.token });
      assert.deepEqual(res.body, { data: { goals: { nodes: [] } } });
    }
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: too many tokens are refused", async () => {
  const ctx = await setupCore();
  try {
    const res = await gql(ctx.t, `{ ${"__typename ".repeat(2100)} }`);
    assert.ok(res.body.errors.some((e: { message: string }) => /token/i.test(e.message)));
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: bodies over 1 MiB answer 413", async () => {
  const ctx = await setupCore();
  try {
    const res = await gqlRaw(ctx.t, {
      query: "{ ping }",
      variables: { pad: "x".repeat(1024 * 1024) },
    });
    assert.equal(res.status, 413);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: unexpected errors are masked as INTERNAL, logged with the request id and reported", async () => {
  const receiver = startFakeServer(() => new Response("{}"));
  const ctx = await setupCore({ ERROR_TRACKER_DSN: `http://key@127.0.0.1:${receiver.port}/1` });
  try {
    const res = await ctx.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "req-broken" },
      body: JSON.stringify({ query: "{ broken }" }),
    });
    const body = await res.json();
    assert.equal(body.errors[0].message, "Unexpected error.");
    assert.equal(body.errors[0].extensions.code, "INTERNAL");
    assert.equal(body.errors[0].extensions.request_id, "req-broken");
    assert.ok(!JSON.stringify(body).includes("secret"));
    const logEntry = ctx.t.log.entries.find((e) =>
      e.level === "error" && e.request_id === "req-broken"
    );
    assert.ok(logEntry, "logged with the request id");
    await ctx.t.deps.tracker.flush();
    assert.equal(receiver.requests.length, 1);
    assert.match(receiver.requests[0].body, /leaked/);
  } finally {
    await ctx.close();
    await receiver.close();
  }
});

Deno.test("graphql: unknown fields are GRAPHQL_VALIDATION_FAILED without field suggestions", async () => {
  const ctx = await setupCore();
  try {
    const res = await gql(ctx.t, "{ pin }");
    assert.equal(res.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
    assert.ok(!/Did you mean/.test(res.body.errors[0].message));
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: a list of N items issues the same number of statements for any N", async () => {
  const ctx = await setupCore();
  try {
    const count = async (n: number) => {
      dataOf(
        await gql(ctx.t, `{ items(n: ${n}) { id owner { id username } } }`, {}, {
          token: ctx.token,
        }),
      );
      return logged(ctx.t.log, "request").at(-1)!.statements as number;
    };
    await count(1); // the first request creates the user
    const small = await count(2);
    const large = await count(50);
    assert.equal(large, small);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: GET /graphql serves GraphiQL to a browser", async () => {
  const ctx = await setupCore();
  try {
    const res = await ctx.t.request("/graphql", { headers: { accept: "text/html" } });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /graphiql/i);
  } finally {
    await ctx.close();
  }
});

Deno.test("graphql: every id-like output field in the schema is an ID", async () => {
  const ctx = await setupCore();
  try {
    const offenders: string[] = [];
    for (const type of Object.values(ctx.t.app.graphql.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith("__")) continue;
      for (const field of Object.values((type as GraphQLObjectType).getFields())) {
        const idLike = field.name === "id" || field.name.endsWith("Id");
        if (idLike && getNamedType(field.type).name !== "ID") {
          offenders.push(`${type.name}.${field.name}`);
        }
      }
    }
    assert.deepEqual(offenders, []);
  } finally {
    await ctx.close();
  }
});
