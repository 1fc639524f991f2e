/**
 * A dependency failure inside a resolver: HTTP 503 with `Retry-After` when nothing was served,
 * 200 with `SERVICE_UNAVAILABLE` on the failed field when other root fields have data, and one
 * warning with the request id instead of an unhandled error.
 */
import assert from "node:assert/strict";
import type { SchemaModule } from "../../src/graphql/module.ts";
import { DependencyUnavailableError } from "../../src/platform/dependency.ts";
import { logged } from "../support/app.ts";
import { setup } from "../support/setup.ts";

const probe: SchemaModule = {
  typeDefs: `extend type Query { probeFine: String  probeDown: String }`,
  publicFields: ["probeFine", "probeDown"],
  resolvers: {
    Query: {
      probeFine: () => "ok",
      probeDown: () =>
        Promise.reject(new DependencyUnavailableError("database", "no answer within 6000 ms")),
    },
  },
};

Deno.test("service unavailable: 503 when nothing was served, 200 with the coded field otherwise", async () => {
  const s = await setup({ app: { extraModules: [probe] } });
  try {
    const down = await s.run(`{ probeDown }`, {}, null);
    assert.equal(down.status, 503);
    assert.equal(down.headers.get("retry-after"), "5");
    assert.deepEqual(down.body.errors[0].extensions, {
      code: "SERVICE_UNAVAILABLE",
      retryAfter: 5,
    });
    assert.ok(!JSON.stringify(down.body).includes("6000"), "the cause stays in the log");

    const partial = await s.run(`{ probeFine probeDown }`, {}, null);
    assert.equal(partial.status, 200);
    assert.equal(partial.body.data.probeFine, "ok");
    assert.deepEqual(partial.body.errors[0].path, ["probeDown"]);
    assert.equal(partial.body.errors[0].extensions.code, "SERVICE_UNAVAILABLE");

    const warnings = logged(s.t.log, "dependency unavailable");
    assert.equal(warnings.length, 2);
    assert.ok(warnings.every((w) => w.level === "warn" && typeof w.request_id === "string"));
    assert.equal(logged(s.t.log, "unhandled error").length, 0);
  } finally {
    await s.close();
  }
});
