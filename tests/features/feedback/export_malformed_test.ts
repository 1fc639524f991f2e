/**
 * The export request is read by a zod schema (issue 41): a body it cannot use is 400
 * `invalid_body` naming the field, anything else is 200; the endpoint stays read-only and never
 * answers 5xx. `since` is still echoed verbatim when nothing matches.
 */
import { recountKeptCounts } from "../../support/kept-counts.ts";
import assert from "node:assert/strict";
import type { TestApp } from "../../support/app.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";
import { seedUser } from "../../support/seed.ts";
import { setup } from "../../support/setup.ts";

const PATH = "/integrations/feedback/export";
const ENV = {
  WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET,
  ADMIN_BASE_URL: "https://ops.example/admin",
};

async function withApp(fn: (t: TestApp) => Promise<void>) {
  const s = await setup({ env: ENV });
  try {
    await fn(s.t);
  } finally {
    await s.close();
  }
}

async function snapshot(t: TestApp) {
  const sql = t.deps.db.sql;
  return JSON.stringify(await sql`select * from feedback_posts order by id`) +
    JSON.stringify(await sql`select * from users order by id`);
}

Deno.test("feedback export: wrong types, NULs, long or unparsable since and infinite limits are 400 naming the field", async () => {
  await withApp(async (t) => {
    const author = await seedUser(t.deps.db.sql);
    await t.deps.db.sql`
      insert into feedback_posts (public_id, author_id, title, description, category, created_at)
      values ('pAAAAAAAAAAAAAAAAAAAAA', ${author.id}, 'title', 'd', 'bug', '2026-01-01T00:00:00Z')`;
    await recountKeptCounts(t.deps.db.sql);
    const before = await snapshot(t);
    const cases: [string, RegExp][] = [
      ["12", /^body must be a JSON object$/],
      ['"since"', /^body must be a JSON object$/],
      ["true", /^body must be a JSON object$/],
      ['{"since":12}', /^since: must be an ISO 8601/],
      ['{"since":true}', /^since: must be an ISO 8601/],
      ['{"since":{}}', /^since: must be an ISO 8601/],
      ['{"since":["2026-01-01"]}', /^since: must be an ISO 8601/],
      ['{"since":""}', /^since: must be an ISO 8601/],
      ['{"since":"2026-01-01T00:00:00\\u0000"}', /^since: must be an ISO 8601/],
      ['{"since":"\\u0000"}', /^since: must be an ISO 8601/],
      [JSON.stringify({ since: "2026-01-01".repeat(20_000) }), /^since: must be an ISO 8601/],
      ['{"limit":"5"}', /^limit: must be a finite number$/],
      ['{"limit":[5]}', /^limit: must be a finite number$/],
      ['{"limit":{}}', /^limit: must be a finite number$/],
      ['{"limit":false}', /^limit: must be a finite number$/],
      ['{"limit":1e400}', /^limit: must be a finite number$/],
      ['{"limit":-1e400}', /^limit: must be a finite number$/],
      ['{"since":5,"limit":"x"}', /^since: .*; limit: must be a finite number$/],
    ];
    for (const [body, message] of cases) {
      const res = await signedPost(t, PATH, body);
      assert.equal(res.status, 400, body.slice(0, 80));
      assert.equal(res.body.error, "invalid_body", body.slice(0, 80));
      assert.match(res.body.message, message, body.slice(0, 80));
    }
    assert.equal(await snapshot(t), before);
  });
});

Deno.test("feedback export: extra fields are ignored, huge finite limits are clamped, since is echoed verbatim", async () => {
  await withApp(async (t) => {
    const author = await seedUser(t.deps.db.sql);
    await t.deps.db.sql`
      insert into feedback_posts (public_id, author_id, title, description, category, created_at)
      select 'p' || lpad(n::text, 21, '0'), ${author.id}, 'title', 'd', 'other',
        timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second'
      from generate_series(1, 3) n`;
    await recountKeptCounts(t.deps.db.sql);
    const before = await snapshot(t);
    const count = async (body: string) => {
      const res = await signedPost(t, PATH, body);
      assert.equal(res.status, 200, body);
      return res.body.feedback_posts.length;
    };
    assert.equal(await count('{"limit":1e300}'), 3);
    assert.equal(await count('{"limit":-1e300}'), 1);
    assert.equal(await count('{"limit":2.9}'), 2);
    assert.equal(await count('{"limit":null,"since":null}'), 3);
    assert.equal(await count('{"unexpected":"\\u0000","nested":{"a":[1e400]},"limit":1}'), 1);
    // Nothing after it: `since` comes back exactly as sent, extra fields or not.
    for (const since of ["2027-01-05", "2027-01-05T10:00:00+02:00", "20270105T100000"]) {
      const res = await signedPost(t, PATH, { since, extra: true, limit: 5 });
      assert.equal(res.status, 200, since);
      assert.deepEqual(res.body, { feedback_posts: [], next_since: since });
    }
    assert.equal(await snapshot(t), before);
  });
});
