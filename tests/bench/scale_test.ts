/**
 * `bench:scale`'s instrument at a fifth of its 1x: the rows grow.ts writes are rows the service
 * reads as its stores wrote them (every case's answer is right for them), and the announcement's
 * fan-out is observed to the last participant. A change that keeps a new figure beside the rows
 * fails here until grow.ts keeps it too. Nothing is timed.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { grow } from "../../bench/scale/grow.ts";
import { countsAt } from "../../bench/scale/sizes.ts";
import { baseOf, contextOf, createThroughApi } from "../../bench/scale/setup.ts";
import { measureAnnouncements } from "../../bench/scale/announce.ts";
import { CASES } from "../../bench/scale/cases.ts";
import { measureCases, serverLog } from "../../bench/scale/measure.ts";

const SECRET = "scale-test-workforce-secret";
const SIZE = 0.2;

Deno.test("bench:scale: grown rows answer every case right, and every participant is announced to", async () => {
  const s = await setup({
    start: new Date().toISOString(),
    admins: ["bench-admin"],
    serve: true,
    env: { WORKFORCE_WEBHOOK_SECRET: SECRET, RATE_LIMIT_USER_PER_MINUTE: "0" },
  });
  try {
    const db = s.t.deps.db;
    const tokens = { viewer: await s.token("bench-viewer"), admin: await s.token("bench-admin") };
    const ids = await createThroughApi(s.served.url, tokens);
    const base = await baseOf(db.sql, ids);
    await grow(db.sql, base, countsAt(0), countsAt(SIZE));

    const announced = await measureAnnouncements({
      sql: db.sql,
      appDb: db,
      sampler: null,
      base,
      size: SIZE,
    });
    for (const figures of [announced.start, announced.end]) {
      assert.equal(figures.timed_out, false);
      assert.equal(figures.participants, countsAt(SIZE).members + 1);
      assert.equal(figures.notified, figures.participants);
      assert.equal(figures.recipients, figures.participants);
      assert.equal(figures.largest_job, "notifications.broadcast");
      assert.ok(figures.longest_transaction_ms > 0);
    }
    const probe = await db.sql`select to_regclass('bench_scale_probe') as t`;
    assert.equal(probe[0].t, null, "the probe is dropped");

    const ctx = await contextOf(db.sql, base, ids, SIZE);
    assert.equal(ctx.expected.deadJobs, countsAt(SIZE).deadJobs);
    const client = { url: s.served.url, tokens, workforceSecret: SECRET, log: serverLog() };
    const measured = await measureCases([{ label: "x", client, ctx }], CASES, 1, 0);
    for (const [kase, figures] of measured.get("x")!) {
      assert.ok(!("error" in figures), `${kase.name}: ${JSON.stringify(figures)}`);
      assert.equal(figures.problem, null, kase.name);
    }
  } finally {
    await s.close();
  }
});
