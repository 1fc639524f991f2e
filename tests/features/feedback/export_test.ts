import assert from "node:assert/strict";
import { recountKeptCounts } from "../../support/kept-counts.ts";
import type { TestApp } from "../../support/app.ts";
import { signedPost, TEST_WORKFORCE_SECRET } from "../../support/signed.ts";
import { seedUser } from "../../support/seed.ts";
import { setup } from "../../support/setup.ts";
import type { Queryable } from "../../../src/platform/db.ts";
import { publicId } from "../../../src/platform/ids.ts";

const PATH = "/integrations/feedback/export";
const ENV = {
  WORKFORCE_WEBHOOK_SECRET: TEST_WORKFORCE_SECRET,
  ADMIN_BASE_URL: "https://ops.example/admin",
};

async function seedPost(
  sql: Queryable,
  authorId: string,
  createdAt: string,
  extra: { title?: string; deleted?: boolean; votes?: number; status?: string } = {},
): Promise<string> {
  const id = publicId();
  await sql`
    insert into feedback_posts (public_id, author_id, title, description, category, status,
      vote_count, created_at, deleted_at)
    values (${id}, ${authorId}, ${extra.title ?? `post ${createdAt}`}, 'details', 'bug',
      ${extra.status ?? "open"}, ${extra.votes ?? 0}, ${createdAt}::text::timestamptz,
      ${extra.deleted ? createdAt : null}::text::timestamptz)`;
  await recountKeptCounts(sql);
  return id;
}

async function withApp(env: Record<string, string>, fn: (t: TestApp) => Promise<void>) {
  const s = await setup({ env });
  try {
    await fn(s.t);
  } finally {
    await s.close();
  }
}

/** Everything the export must never change. */
async function snapshot(sql: Queryable) {
  return JSON.stringify(
    await sql`select * from feedback_posts order by id`,
  ) + JSON.stringify(await sql`select * from users order by id`);
}

Deno.test("feedback export: posts in the spec 2.6 shape, oldest first, with microsecond next_since", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql, { username: "ada" });
    const second = await seedPost(sql, author.id, "2026-01-02T10:00:00.000002Z", {
      votes: 3,
      status: "planned",
    });
    const first = await seedPost(sql, author.id, "2026-01-02T10:00:00.000001Z");
    const res = await signedPost(t, PATH, {});
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["feedback_posts", "next_since"]);
    assert.deepEqual(res.body.feedback_posts.map((p: { public_id: string }) => p.public_id), [
      first,
      second,
    ]);
    assert.deepEqual(res.body.feedback_posts[1], {
      public_id: second,
      title: "post 2026-01-02T10:00:00.000002Z",
      description: "details",
      category: "bug",
      status: "planned",
      vote_count: 3,
      comment_count: 0,
      author_username: "ada",
      author_public_id: author.publicId,
      created_at: "2026-01-02T10:00:00.000002Z",
      admin_url: `https://ops.example/admin/feedback_posts/${second}`,
    });
    assert.equal(res.body.next_since, "2026-01-02T10:00:00.000002Z");
  });
});

Deno.test("feedback export: pages follow next_since, including timestamps a microsecond apart", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    const times = [
      "2026-01-01T00:00:00.000001Z",
      "2026-01-01T00:00:00.000002Z",
      "2026-01-01T00:00:00.000003Z",
      "2026-01-01T00:00:01Z",
      "2026-01-02T00:00:00.5Z",
    ];
    const ids = [];
    for (const at of times) ids.push(await seedPost(sql, author.id, at));
    const seen: string[] = [];
    const sinces: (string | null)[] = [];
    let since: string | undefined;
    for (let page = 0; page < 4; page++) {
      const res = await signedPost(
        t,
        PATH,
        since === undefined ? { limit: 2 } : { since, limit: 2 },
      );
      assert.equal(res.status, 200);
      seen.push(...res.body.feedback_posts.map((p: { public_id: string }) => p.public_id));
      sinces.push(res.body.next_since);
      since = res.body.next_since;
    }
    assert.deepEqual(seen, ids);
    assert.deepEqual(sinces, [
      "2026-01-01T00:00:00.000002Z",
      "2026-01-01T00:00:01.000000Z",
      "2026-01-02T00:00:00.500000Z",
      "2026-01-02T00:00:00.500000Z",
    ]);
  });
});

Deno.test("feedback export: posts sharing one timestamp are never split across pages", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    const a = await seedPost(sql, author.id, "2026-01-01T00:00:00.000001Z");
    const b = await seedPost(sql, author.id, "2026-01-01T00:00:00.000002Z");
    const c = await seedPost(sql, author.id, "2026-01-01T00:00:00.000002Z");
    const d = await seedPost(sql, author.id, "2026-01-01T00:00:00.000003Z");
    const one = await signedPost(t, PATH, { limit: 2 });
    assert.deepEqual(one.body.feedback_posts.map((p: { public_id: string }) => p.public_id), [a]);
    const two = await signedPost(t, PATH, { since: one.body.next_since, limit: 1 });
    assert.deepEqual(two.body.feedback_posts.map((p: { public_id: string }) => p.public_id), [
      b,
      c,
    ]);
    const three = await signedPost(t, PATH, { since: two.body.next_since, limit: 1 });
    assert.deepEqual(three.body.feedback_posts.map((p: { public_id: string }) => p.public_id), [d]);
  });
});

Deno.test("feedback export: nothing new echoes since byte for byte (the start when none was sent)", async () => {
  await withApp(ENV, async (t) => {
    const author = await seedUser(t.deps.db.sql);
    await seedPost(t.deps.db.sql, author.id, "2026-01-01T00:00:00Z");
    const since = "2026-03-01T09:30:00.1+01:00";
    const res = await signedPost(t, PATH, { since });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { feedback_posts: [], next_since: since });
    assert.ok(res.text.includes(`"next_since":"${since}"`));
    const empty = await withNoPosts(t);
    assert.deepEqual(empty, { feedback_posts: [], next_since: "1970-01-01T00:00:00.000000Z" });
  });
});

Deno.test("feedback export: since in any ISO 8601 form selects the same posts (no zone: UTC)", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    await seedPost(sql, author.id, "2026-01-04T23:59:59.999999Z", { title: "before" });
    await seedPost(sql, author.id, "2026-01-05T00:00:00Z", { title: "at midnight" });
    await seedPost(sql, author.id, "2026-01-05T10:00:00.000001Z", { title: "after ten" });
    const titles = async (since: string) => {
      const res = await signedPost(t, PATH, { since });
      assert.equal(res.status, 200, `${since}: ${res.text}`);
      return res.body.feedback_posts.map((p: { title: string }) => p.title);
    };
    // Midnight 2026-01-05 UTC, however it is written: strictly after it.
    for (
      const since of [
        "2026-01-05",
        "20260105",
        "2026-005",
        "2026-W02-1",
        "2026-01-05T00:00",
        "2026-01-05T00:00:00",
        "2026-01-05 00:00:00",
        "2026-01-05T01:00:00+01:00",
        "2026-01-04T19:00:00-0500",
        "20260105T000000Z",
      ]
    ) {
      assert.deepEqual(await titles(since), ["after ten"], since);
    }
    assert.deepEqual(await titles("2026-01-05T10:00:00"), ["after ten"]);
    assert.deepEqual(await titles("2026-01-05T10:00:00.000001"), []);
    assert.deepEqual(await titles("2026-01-04"), ["before", "at midnight", "after ten"]);
    for (const bad of ["2026-02-30", "2026-01-05T10:00:00+25:00", "last week", "2026-01-05T"]) {
      const res = await signedPost(t, PATH, { since: bad });
      assert.equal(res.status, 400, bad);
      assert.match(res.body.message ?? res.text, /ISO 8601/);
    }
  });
});

async function withNoPosts(t: TestApp) {
  await t.deps.db.sql`update feedback_posts set deleted_at = now()`;
  await recountKeptCounts(t.deps.db.sql);
  return (await signedPost(t, PATH, {})).body;
}

Deno.test("feedback export: limit is clamped to 1..500 and defaults to 100", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    await sql`
      insert into feedback_posts (public_id, author_id, title, description, category, created_at)
      select 'p' || lpad(n::text, 21, '0'), ${author.id}, 'title', 'd', 'other',
        timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second'
      from generate_series(1, 502) n`;
    await recountKeptCounts(sql);
    const count = async (body: unknown) =>
      (await signedPost(t, PATH, body)).body.feedback_posts.length;
    assert.equal(await count({}), 100);
    assert.equal(await count({ limit: 0 }), 1);
    assert.equal(await count({ limit: -3 }), 1);
    assert.equal(await count({ limit: 7 }), 7);
    assert.equal(await count({ limit: 10_000 }), 500);
  });
});

Deno.test("feedback export: soft-deleted posts are never exported", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    const kept = await seedPost(sql, author.id, "2026-01-01T00:00:00Z");
    await seedPost(sql, author.id, "2026-01-01T00:00:01Z", { deleted: true });
    const res = await signedPost(t, PATH, {});
    assert.deepEqual(res.body.feedback_posts.map((p: { public_id: string }) => p.public_id), [
      kept,
    ]);
    assert.equal(res.body.next_since, "2026-01-01T00:00:00.000000Z");
  });
});

Deno.test("feedback export: 401 for a missing, bad or foreign signature; 400 for bad bodies; read-only", async () => {
  await withApp(ENV, async (t) => {
    const sql = t.deps.db.sql;
    const author = await seedUser(sql);
    await seedPost(sql, author.id, "2026-01-01T00:00:00Z", { votes: 2 });
    const before = await snapshot(sql);
    assert.equal((await signedPost(t, PATH, {}, { signature: null })).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { signature: "0".repeat(64) })).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { secret: "another-secret" })).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { signature: "nothex" })).status, 401);
    // A signature over a different body does not carry over.
    const { hmacSha256Hex } = await import("../../../src/platform/hmac.ts");
    const sig = await hmacSha256Hex(TEST_WORKFORCE_SECRET, "{}");
    assert.equal((await signedPost(t, PATH, '{"limit":1}', { signature: sig })).status, 401);
    for (const malformed of ["{", "", "not json", '{"since":']) {
      const res = await signedPost(t, PATH, malformed);
      assert.equal(res.status, 400, malformed);
      assert.equal(res.body.error, "malformed_json");
    }
    for (const bad of ["[]", "null", '{"since":12}', '{"since":"soon"}', '{"limit":"5"}']) {
      assert.equal((await signedPost(t, PATH, bad)).status, 400, bad);
    }
    assert.equal((await signedPost(t, PATH, { since: "2025-01-01T00:00:00Z" })).status, 200);
    assert.equal(await snapshot(sql), before);
  });
});

Deno.test("feedback export: an unset secret answers 401 even to a well-formed request", async () => {
  await withApp({}, async (t) => {
    assert.equal((await signedPost(t, PATH, {})).status, 401);
    assert.equal((await signedPost(t, PATH, {}, { signature: null })).status, 401);
  });
});
