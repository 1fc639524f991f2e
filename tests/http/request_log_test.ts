import assert from "node:assert/strict";
import { ACCEPT, CREATE_INVITE, setupTeam } from "../support/teams.ts";
import { gqlRaw } from "../support/graphql.ts";
import { createTestApp, logged, type TestApp } from "../support/app.ts";
import { setup } from "../support/setup.ts";
import type { SchemaModule } from "../../src/graphql/module.ts";

const PREVIEW_AS = (name: string) =>
  `query Preview($${name}: String!) { teamInvitePreview(token: $${name}) { valid } }`;

Deno.test("request log: no invite token, session token or signature, whatever the names", async () => {
  const g = await setupTeam();
  try {
    const invite = (await g.data(CREATE_INVITE, { teamId: g.teamId, hours: 24, maxUses: 3 }))
      .createTeamInvite;
    const secret = invite.token as string;
    const signature = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6";
    g.t.log.entries.length = 0;

    const preview = await g.run(PREVIEW_AS("t"), { t: secret }, null);
    assert.equal(preview.body.data.teamInvitePreview.valid, true);
    const accepted = await g.run(ACCEPT.replaceAll("$token", "$k"), { k: secret }, "loner");
    assert.deepEqual(accepted.body.data.acceptTeamInvite.errors, []);
    const query = encodeURIComponent(PREVIEW_AS("anything"));
    const variables = encodeURIComponent(JSON.stringify({ anything: secret }));
    const get = await g.t.request(`/graphql?query=${query}&variables=${variables}`, {
      headers: { accept: "application/json" },
    });
    assert.equal((await get.json()).data.teamInvitePreview.valid, true);
    const batch = await gqlRaw(g.t, [
      { query: PREVIEW_AS("x"), variables: { x: secret }, operationName: "Preview" },
      {
        query: `mutation Nested($input: [String!]!) { __typename }`,
        variables: { input: [secret, { deep: { deeper: secret } }] },
      },
    ], { token: g.tokens.owner });
    assert.equal(batch.status, 200);
    const refused = await g.t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: `${secret}.${signature}` },
      body: JSON.stringify({ query: "{ me { id } }" }),
    });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    for (const path of [`/health?sig=${signature}&key=${secret}`, `/cable?token=${secret}`]) {
      await (await g.t.request(path)).body?.cancel();
    }

    const text = JSON.stringify(g.t.log.entries);
    for (const value of [secret, signature, ...Object.values(g.tokens)]) {
      assert.ok(!text.includes(value), `the log shows ${value.slice(0, 12)}…`);
    }
    const requests = logged(g.t.log, "request");
    assert.equal(requests[0].graphql_operation, "Preview");
    assert.deepEqual(requests[0].params, {
      operationName: null,
      variables: { t: "[FILTERED]" },
    });
    assert.deepEqual(requests[2].params, {
      operationName: null,
      variables: { anything: "[FILTERED]" },
    });
    assert.deepEqual(requests[3].params, {
      batch: [
        { operationName: "Preview", variables: { x: "[FILTERED]" } },
        {
          operationName: null,
          variables: { input: ["[FILTERED]", { deep: { deeper: "[FILTERED]" } }] },
        },
      ],
    });
    assert.deepEqual(requests.at(-2)!.params, { query_keys: ["sig", "key"] });
    assert.deepEqual(requests.at(-1)!.params, { query_keys: ["token"] });
  } finally {
    await g.close();
  }
});

Deno.test("request log: numbers, booleans and nulls are kept, long lists and names bounded", async () => {
  const g = await setupTeam();
  try {
    g.t.log.entries.length = 0;
    await g.data(CREATE_INVITE, { teamId: g.teamId, hours: 24, maxUses: null });
    const [entry] = logged(g.t.log, "request");
    assert.deepEqual(entry.params, {
      operationName: null,
      variables: { teamId: "[FILTERED]", hours: 24, maxUses: null },
    });
    g.t.log.entries.length = 0;
    await gqlRaw(g.t, {
      query: "{ __typename }",
      operationName: "not a name; drop table",
      variables: { list: Array.from({ length: 15 }, (_, i) => i), flag: true },
    });
    const [odd] = logged(g.t.log, "request");
    assert.deepEqual(odd.params, {
      operationName: null,
      variables: { list: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "[5 more]"], flag: true },
    });
  } finally {
    await g.close();
  }
});

Deno.test("request log: a refused token's reason is bounded, whatever its header holds", async () => {
  const t = await createTestApp();
  try {
    const header = btoa(JSON.stringify({ alg: "x".repeat(5000) })).replaceAll("=", "");
    const res = await t.request("/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", SessionToken: `${header}.e30.c2ln` },
      body: JSON.stringify({ query: "{ me { id } }" }),
    });
    assert.equal(res.status, 401);
    await res.body?.cancel();
    const [refused] = logged(t.log, "session token refused");
    assert.ok((refused.reason as string).length < 80, refused.reason as string);
  } finally {
    await t.close();
  }
});

/** `sleepers(n)`: n statements of 0.2 s at once, and one more after them. */
function sleepersModule(t: () => TestApp): SchemaModule {
  return {
    typeDefs: `extend type Query { sleepers(n: Int!): Int! }`,
    resolvers: {
      Query: {
        sleepers: async (_: unknown, args: { n: number }) => {
          const sql = t().deps.db.sql;
          await Promise.all(Array.from({ length: args.n }, () => sql`select pg_sleep(0.2)`));
          await sql`select 1`;
          return args.n;
        },
      },
    },
    publicFields: ["sleepers"],
  };
}

Deno.test("request log: db is the time a statement was in flight, never over the duration", async () => {
  const holder: { t?: TestApp } = {};
  const s = await setup({ app: { extraModules: [sleepersModule(() => holder.t!)] } });
  holder.t = s.t;
  try {
    const res = await gqlRaw(s.t, { query: "{ sleepers(n: 4) }" });
    assert.deepEqual(res.body, { data: { sleepers: 4 } });
    const [line] = logged(s.t.log, "request").filter((e) => e.path === "/graphql");
    assert.equal(line.statements, 5);
    const db = line.db as number, duration = line.duration as number;
    assert.ok(db >= 200, `db ${db} ms`);
    assert.ok(db <= duration, `db ${db} ms over a duration of ${duration} ms`);
    assert.ok((line.view as number) >= 0);
  } finally {
    await s.close();
  }
});
