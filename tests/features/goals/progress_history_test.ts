/**
 * Progress before a range comes from running totals (migration 0037), not from the goal's whole
 * history: right through adds, edits, deletes and undos before and inside the range, and the read
 * touches the range's events only.
 */
import assert from "node:assert/strict";
import { ADD_EVENT, addGoal, CHECK_IN } from "../../support/goals.ts";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import {
  goalsByIds,
  insertGoalEvent,
  ownGoal,
  progressBucketsStatement,
} from "../../../src/features/goals/store.ts";

const PROGRESS = `query P($goalId: String!, $groupBy: ProgressGroupBy!, $from: Date, $to: Date) {
  goalProgressData(goalId: $goalId, groupBy: $groupBy, from: $from, to: $to) {
    buckets { periodStart sum count cumulativeValue } } }`;
const UPDATE_EVENT = `mutation U($eventId: String!, $value: Float, $note: String,
  $occurredAt: DateTime) {
  updateGoalEvent(eventId: $eventId, value: $value, note: $note, occurredAt: $occurredAt) {
    event { id } ${USER_ERRORS} } }`;
const DELETE_EVENT = `mutation D($eventId: String!) {
  deleteGoalEvent(eventId: $eventId) { event { id } ${USER_ERRORS} } }`;
const UNDO = `mutation U($goalId: String!, $date: Date) {
  undoCheckIn(goalId: $goalId, date: $date) { ${USER_ERRORS} } }`;

/** Sums of fractions in another order differ in their last bits. */
const round = (n: number) => Math.round(n * 1e9) / 1e9;

type Bucket = { periodStart: string; sum: number; count: number; cumulativeValue: number };

async function buckets(s: TestSetup, goalId: string, from: string, to: string) {
  return (await s.data(PROGRESS, { goalId, groupBy: "day", from, to })).goalProgressData
    .buckets as Bucket[];
}

/** Every stored running total of the goal equals a recount of its history. */
async function assertTotalsRecount(s: TestSetup, goalPublicId: string) {
  const wrong = await s.t.deps.db.sql`
    select p.day from goal_progress_days p join goals g on g.id = p.goal_id
    where g.public_id = ${goalPublicId} and (
      p.value_through <> (select coalesce(sum(e.value::numeric), 0) from goal_events e
        where e.goal_id = p.goal_id and (e.occurred_at at time zone 'UTC')::date <= p.day)
      or p.check_ins_through <> (select count(*) from habit_check_ins c
        where c.goal_id = p.goal_id and c.day <= p.day))`;
  assert.deepEqual([...wrong], [], "running totals match a recount");
}

Deno.test("progress history: the total before a range follows adds, edits, deletes and undos", async () => {
  // Kolkata is UTC+05:30: the range's first local midnight is 18:30 UTC the day before, so the
  // events of that UTC day fall on both sides of it.
  const s = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    await s.data(`mutation { updateMe(timeZone: "Asia/Kolkata") { errors { code } } }`);
    const goal = await addGoal(s, {
      title: "Pages",
      kind: "target",
      startValue: 10,
      targetValue: 1e6,
    });
    const events = new Map<string, { value: number; at: string }>();
    const add = async (value: number, at: string) => {
      const res = (await s.data(ADD_EVENT, { goalId: goal.id, value, occurredAt: at }))
        .addGoalEvent;
      assert.deepEqual(res.errors, []);
      events.set(res.event.id, { value, at: new Date(at).toISOString() });
      return res.event.id as string;
    };
    const from = "2026-03-02";
    const rangeStart = Date.parse("2026-03-01T18:30:00Z");
    // What the buckets must say: the start value and every event before the range, then each
    // day's events (days in Kolkata).
    const expected = () => {
      const list = [...events.values()];
      let total = 10 + list.filter((e) => Date.parse(e.at) < rangeStart)
        .reduce((sum, e) => sum + e.value, 0);
      return Array.from({ length: 9 }, (_, i) => {
        const dayStart = rangeStart + i * 86_400_000;
        const inDay = list.filter((e) => {
          const t = Date.parse(e.at);
          return t >= dayStart && t < dayStart + 86_400_000;
        });
        const sum = round(inDay.reduce((acc, e) => acc + e.value, 0));
        total += sum;
        return {
          periodStart: new Date(dayStart + 86_400_000).toISOString().slice(0, 10),
          sum,
          count: inDay.length,
          cumulativeValue: round(total),
        };
      });
    };
    const check = async (step: string) => {
      const got = (await buckets(s, goal.id, from, "2026-03-10"))
        .map((b) => ({ ...b, sum: round(b.sum), cumulativeValue: round(b.cumulativeValue) }));
      assert.deepEqual(got, expected(), step);
      await assertTotalsRecount(s, goal.id);
    };

    const old = await add(100, "2025-06-01T10:00:00Z");
    await add(7, "2025-06-01T23:00:00Z");
    const early = await add(3, "2026-03-01T10:00:00Z"); // 15:30 on the 1st in Kolkata
    const late = await add(40, "2026-03-01T20:00:00Z"); // 01:30 on the 2nd: in the range
    await add(5, "2026-03-05T06:00:00Z");
    await check("after adds");

    const edit = async (eventId: string, vars: Record<string, unknown>) => {
      const res = (await s.data(UPDATE_EVENT, { eventId, ...vars })).updateGoalEvent;
      assert.deepEqual(res.errors, []);
      const e = events.get(eventId)!;
      if (vars.value !== undefined) e.value = vars.value as number;
      if (vars.occurredAt !== undefined) e.at = new Date(vars.occurredAt as string).toISOString();
    };
    await edit(old, { value: 60, occurredAt: "2026-03-03T09:00:00Z" });
    await check("an old event moved into the range with a new value");
    await edit(late, { occurredAt: "2026-02-20T12:00:00Z" });
    await check("a range event moved before it");
    await edit(early, { value: -2.5 });
    await check("an event of the boundary day changed");
    await edit(early, { note: "only the note" });
    await check("a note changed");

    const gone = (await s.data(DELETE_EVENT, { eventId: late })).deleteGoalEvent;
    assert.deepEqual(gone.errors, []);
    events.delete(late);
    await check("an event before the range deleted");
    await add(0.1, "2025-12-31T23:59:59Z");
    await add(0.2, "2026-01-01T00:00:00Z");
    await check("fractions before the range");
  } finally {
    await s.close();
  }
});

Deno.test("progress history: a habit's check-ins before a range follow check-ins and undos", async () => {
  const s = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    const habit = await addGoal(s, { title: "Walk", kind: "habit" });
    const checkIn = async (date: string) =>
      assert.deepEqual(
        (await s.data(CHECK_IN, { goalId: habit.id, date })).checkInHabit.errors,
        [],
      );
    for (const date of ["2026-03-04", "2026-03-05", "2026-03-07", "2026-03-09", "2026-03-10"]) {
      await checkIn(date);
    }
    const cumulative = async () =>
      (await buckets(s, habit.id, "2026-03-08", "2026-03-10")).map((b) => b.cumulativeValue);
    assert.deepEqual(await cumulative(), [3, 4, 5]);
    assert.deepEqual(
      (await s.data(UNDO, { goalId: habit.id, date: "2026-03-05" })).undoCheckIn
        .errors,
      [],
    );
    assert.deepEqual(await cumulative(), [2, 3, 4], "an undo before the range");
    await checkIn("2026-03-03");
    await checkIn("2026-03-05");
    assert.deepEqual(await cumulative(), [4, 5, 6], "check-ins before the range");
    await assertTotalsRecount(s, habit.id);
  } finally {
    await s.close();
  }
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  Plans?: PlanNode[];
}

function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodesOf(child);
}

Deno.test("progress history: a 30-day read scans the range, not the history before it", async () => {
  const s = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    const sql = s.t.deps.db.sql;
    const goal = await addGoal(s, { title: "Steps", kind: "target", targetValue: 1e9 });
    // 5,000 events, ten a day for 500 days, written as the store writes them.
    await sql`
      insert into goal_events (public_id, goal_id, user_id, value, occurred_at)
      select 'seeded' || n, g.id, g.user_id, (n % 10) + 1,
             timestamptz '2026-03-10T11:00:00Z' - n * interval '144 minutes'
      from goals g, generate_series(0, 4999) n where g.public_id = ${goal.id}`;
    await sql`analyze goal_events`;
    await sql`analyze goal_progress_days`;
    const [row] = await goalsByIds(sql, [
      (await ownGoal(sql, await s.userId("alice"), goal.id))!.id,
    ]);
    const statement = () =>
      progressBucketsStatement(sql, row, "day", "2026-02-09", "2026-03-10", "Europe/Berlin");

    const result = await statement();
    const [oracle] = await sql<{ before: number }[]>`
      select sum(value)::double precision as before from goal_events
      where goal_id = ${row.id} and occurred_at < timestamptz '2026-02-09T00:00:00+01:00'`;
    assert.equal(result.length, 30);
    assert.equal(result[0].cumulativeValue - result[0].sum, oracle.before);
    assert.equal(result.at(-1)!.cumulativeValue, 27_500, "every event, (n % 10) + 1 each");

    const [explained] = await sql<{ "QUERY PLAN": unknown }[]>`
      explain (analyze, format json) ${statement()}`;
    const plan = explained["QUERY PLAN"];
    const root = (typeof plan === "string" ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
    const nodes = [...nodesOf(root[0].Plan)];
    const onHistory = nodes.filter((n) =>
      n["Relation Name"] === "goal_events" || n["Relation Name"] === "goal_progress_days"
    );
    assert.ok(onHistory.length > 0, "the plan reads the goal's events");
    assert.deepEqual(
      onHistory.filter((n) => n["Node Type"] === "Seq Scan"),
      [],
      "no sequential scan over a goal's history",
    );
    const eventsRead = onHistory.filter((n) => n["Relation Name"] === "goal_events")
      .reduce((sum, n) => sum + n["Actual Rows"] * n["Actual Loops"], 0);
    // 30 days of ten events and at most one more day at the range's start: not 5,000.
    assert.ok(eventsRead <= 31 * 10, `read ${eventsRead} events`);
    const totalsRead = onHistory.filter((n) => n["Relation Name"] === "goal_progress_days")
      .reduce((sum, n) => sum + n["Actual Rows"] * n["Actual Loops"], 0);
    assert.ok(totalsRead <= 1, `read ${totalsRead} running totals`);
  } finally {
    await s.close();
  }
});

Deno.test("progress history: a write changes the running totals of its goal's days only", async () => {
  const s = await setup({ start: "2026-03-10T12:00:00Z" });
  try {
    const sql = s.t.deps.db.sql;
    const goals = [];
    for (const title of ["Steps", "Pages", "Laps"]) {
      goals.push(await addGoal(s, { title, kind: "target", targetValue: 1e9 }));
    }
    // Three goals of 500 days each.
    await sql`
      insert into goal_events (public_id, goal_id, user_id, value, occurred_at)
      select 'seeded' || g.id || '_' || n, g.id, g.user_id, 1,
             timestamptz '2026-03-10T11:00:00Z' - n * interval '1 day'
      from goals g, generate_series(0, 499) n
      where g.public_id = any(${goals.map((g) => g.id)}::text[])`;
    await sql`analyze goal_progress_days`;
    const [goal] = await goalsByIds(sql, [
      (await ownGoal(sql, await s.userId("alice"), goals[0].id))!.id,
    ]);
    // The backend's counters of the table, read before and after within one transaction (they
    // may still hold earlier transactions' counts, not yet flushed).
    const reads = await sql.begin(async (tx) => {
      const counters = async () => {
        const [row] = await tx<{ seq: number; idx: number; changed: number }[]>`
          select coalesce(seq_scan, 0)::int as seq, coalesce(idx_scan, 0)::int as idx,
                 (n_tup_ins + n_tup_upd)::int as changed
          from pg_stat_xact_user_tables where relname = 'goal_progress_days'`;
        return row;
      };
      const before = await counters();
      // Past the first few runs, which plan for their own arguments: then a plan for any.
      for (let i = 0; i < 8; i++) {
        await insertGoalEvent(tx, goal, 2, null, new Date("2026-03-10T11:30:00Z"));
      }
      await insertGoalEvent(tx, goal, 3, null, new Date("2026-02-28T08:00:00Z"));
      const after = await counters();
      return {
        seq: after.seq - before.seq,
        idx: after.idx - before.idx,
        changed: after.changed - before.changed,
      };
    });
    assert.equal(reads.seq, 0, "no sequential scan over every goal's days");
    assert.ok(reads.idx > 0);
    // Today's row eight times, then the 28th's and the 10 days after it.
    assert.equal(reads.changed, 8 + 11);
    await assertTotalsRecount(s, goals[0].id);
  } finally {
    await s.close();
  }
});
