/**
 * The activation funnel request is read by a zod schema (issue 41): anything but a JSON object is
 * 400 `invalid_body`; an object's fields are ignored. Read-only, never a 5xx.
 */
import assert from "node:assert/strict";
import type { TestApp } from "../../support/app.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";
import { seedUser } from "../../support/seed.ts";
import { setup } from "../../support/setup.ts";
import { parseFunnelRequest } from "../../../src/features/funnel/rules.ts";

const PATH = "/integrations/activation-funnel";

async function withApp(fn: (t: TestApp) => Promise<void>) {
  const s = await setup({
    env: { WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET },
    start: "2026-01-15T00:00:00.000Z",
  });
  try {
    await fn(s.t);
  } finally {
    await s.close();
  }
}

Deno.test("funnel rules: the request is a JSON object", () => {
  assert.deepEqual(parseFunnelRequest({}), {});
  assert.deepEqual(parseFunnelRequest({ extra: 1 }), {});
  for (const bad of [null, [], "{}", 0, true]) {
    assert.equal(parseFunnelRequest(bad), "body must be the JSON object {}", JSON.stringify(bad));
  }
});

Deno.test("activation funnel: bodies that are not an object are 400; extra, odd or huge fields are ignored", async () => {
  await withApp(async (t) => {
    await seedUser(t.deps.db.sql, { createdAt: "2026-01-10T00:00:00Z" });
    const users = async () => JSON.stringify(await t.deps.db.sql`select * from users`);
    const before = await users();
    for (const body of ["null", "[]", "[{}]", "0", "1e400", '"{}"', "true"]) {
      const res = await signedPost(t, PATH, body);
      assert.equal(res.status, 400, body);
      assert.equal(res.body.error, "invalid_body", body);
      assert.equal(res.body.message, "body must be the JSON object {}", body);
    }
    const expected = (await signedPost(t, PATH, {})).body;
    for (
      const body of [
        '{"window_days":"30"}',
        '{"as_of":"\\u0000","n":1e400,"x":"' + "y".repeat(100_000) + '"}',
        '{"current":{"signed_in":-1},"skip_run":true}',
      ]
    ) {
      const res = await signedPost(t, PATH, body);
      assert.equal(res.status, 200, body.slice(0, 80));
      assert.deepEqual(res.body, expected, body.slice(0, 80));
    }
    assert.equal(await users(), before);
  });
});
