/**
 * Feed retention (`FEED_RETENTION_DAYS`, docs/runbook.md "Retention"): items whose activity
 * happened longer ago are deleted in bounded batches; the activity itself stays.
 */
import assert from "node:assert/strict";
import { pruneOldFeedItems } from "../../../src/features/feed/service.ts";
import { logged } from "../../support/app.ts";
import { ADD_EVENT, addGoal } from "../../support/goals.ts";
import { setup, type TestSetup } from "../../support/setup.ts";

const DAY_MS = 86_400_000;

const FEED = `query F($first: Int, $after: String) {
  unifiedFeed(first: $first, after: $after) {
    edges { node { id kind occurredAt } } pageInfo { hasNextPage } } }`;

interface Item {
  id: string;
  kind: string;
  occurredAt: string;
}

async function feedOf(s: TestSetup, as = "alice", after?: string): Promise<Item[]> {
  const page = (await s.data(FEED, { first: 100, after }, as)).unifiedFeed;
  assert.equal(page.pageInfo.hasNextPage, false);
  return page.edges.map((e: { node: Item }) => e.node);
}

async function count(s: TestSetup, table: "feed_items" | "goal_events"): Promise<number> {
  const [{ n }] = await s.t.deps.db.sql<{ n: number }[]>`
    select count(*)::int as n from ${s.t.deps.db.sql(table)}`;
  return n;
}

/** The schedule's use case over the test app, with its settings and a small batch. */
const prune = (s: TestSetup, retentionDays: number, batchSize = 2) =>
  pruneOldFeedItems({
    db: s.t.deps.db,
    clock: s.clock,
    log: s.t.log,
    retentionDays,
  }, { batchSize });

Deno.test("feed retention: items older than the setting go in batches, newer stay, the activity stays", async () => {
  const s = await setup({ start: "2025-01-01T12:00:00Z" });
  try {
    // A year and a bit of activity: five events on the first day, two 200 days later.
    const goal = await addGoal(s, { title: "Run", kind: "target", unit: "km", targetValue: 1000 });
    for (let i = 0; i < 5; i++) {
      s.clock.advance(60_000);
      await s.data(ADD_EVENT, { goalId: goal.id, value: 1 });
    }
    const first = await feedOf(s);
    const oldCursor = (await s.data(`{ unifiedFeed(first: 1) { pageInfo { endCursor } } }`))
      .unifiedFeed.pageInfo.endCursor;
    s.clock.advance(200 * DAY_MS);
    const newGoal = await addGoal(s, { title: "Swim", kind: "target", targetValue: 100 });
    await s.data(ADD_EVENT, { goalId: newGoal.id, value: 2 });
    await s.data(ADD_EVENT, { goalId: newGoal.id, value: 3 });
    const kept = (await feedOf(s)).filter((i) => !first.some((f) => f.id === i.id));
    assert.ok(first.length >= 5, "each event, and badges, made an item");
    assert.ok(kept.length >= 2);
    // Bob's activity of the first day goes too: the prune is not per user.
    s.clock.set("2025-01-01T13:00:00Z");
    await addGoal(s, { title: "Read", kind: "habit" }, "bob");
    const bobFirst = await feedOf(s, "bob");
    assert.ok(bobFirst.length >= 1);
    const events = await count(s, "goal_events");

    // 365 days after the oldest item, nothing is due yet.
    s.clock.set(new Date(Date.parse(first.at(-1)!.occurredAt) + 365 * DAY_MS));
    assert.deepEqual(await prune(s, 365), { rows: 0, more: false });
    assert.equal(logged(s.t.log, "feed items pruned").length, 0, "nothing pruned, nothing logged");

    // An hour later, every first-day item is (in batches of 2), the later ones stay.
    s.clock.advance(61 * 60_000);
    const result = await prune(s, 365);
    assert.deepEqual(result, { rows: first.length + bobFirst.length, more: false });
    assert.deepEqual(await feedOf(s), kept);
    assert.deepEqual(await feedOf(s, "bob"), []);
    assert.equal(await count(s, "feed_items"), kept.length);
    assert.equal(await count(s, "goal_events"), events, "the events themselves are kept");
    const [line] = logged(s.t.log, "feed items pruned");
    assert.equal(line.pruned, first.length + bobFirst.length);
    assert.equal(line.more, false);

    // A pruned item's cursor is unknown now: an empty page, not an error.
    assert.deepEqual(await feedOf(s, "alice", oldCursor), []);
    // Repeated runs change nothing and log nothing.
    assert.deepEqual(await prune(s, 365), { rows: 0, more: false });
    assert.deepEqual(await prune(s, 365, 1), { rows: 0, more: false });
    assert.equal(logged(s.t.log, "feed items pruned").length, 1);
    assert.deepEqual(await feedOf(s), kept);

    // The feed is pruned in the order it is paged: an event logged now for a time beyond the
    // window goes with the next run; 0 keeps everything however old.
    await s.data(ADD_EVENT, { goalId: goal.id, value: 1, occurredAt: "2025-01-01T12:30:00Z" });
    assert.equal((await feedOf(s)).length, kept.length + 1);
    assert.deepEqual(await prune(s, 0), { rows: 0, more: false });
    assert.equal((await feedOf(s)).length, kept.length + 1);
    assert.deepEqual(await prune(s, 365), { rows: 1, more: false });
    assert.deepEqual(await feedOf(s), kept);
  } finally {
    await s.close();
  }
});

Deno.test("feed retention: the schedule (every 10 minutes) reads FEED_RETENTION_DAYS; 0 keeps every item", async () => {
  for (const [days, left] of [["30", 0], ["0", 1]] as const) {
    const s = await setup({ env: { FEED_RETENTION_DAYS: days } });
    try {
      await addGoal(s, { title: "Run", kind: "habit" });
      const items = (await feedOf(s)).length;
      assert.ok(items >= 1);
      const schedule = s.t.app.features.feed.schedules!.find((x) =>
        x.name === "feed.prune_old_items"
      )!;
      assert.equal(schedule.cron, "3-59/10 * * * *");
      s.clock.advance(31 * DAY_MS);
      await schedule.run(s.clock.now());
      assert.equal((await feedOf(s)).length, left * items, `FEED_RETENTION_DAYS=${days}`);
    } finally {
      await s.close();
    }
  }
});
