/**
 * The `goals` list reads its goals' figures, streaks, sub-goals and events ahead, in its page
 * statement. Whatever the paging, they must equal a recount from the raw rows, written here
 * without the service's code: check-ins, freezes and events counted in the user's time zone.
 */
import assert from "node:assert/strict";
import { addGoal } from "../../support/goals.ts";
import { USER_ERRORS } from "../../support/graphql.ts";
import { setup, type TestSetup } from "../../support/setup.ts";

const ZONE = "America/New_York";
const DAY_MS = 86_400_000;

const FIGURES = `id title currentValue percentComplete currentStreak longestStreak checkedInToday
  subGoals { id title currentValue }`;
const LIST = `query($first: Int, $after: String, $last: Int, $before: String, $events: Int,
  $eventsLast: Int) {
  goals(first: $first, after: $after, last: $last, before: $before) {
    pageInfo { hasNextPage endCursor }
    nodes { ${FIGURES}
      recent: events(first: $events) { nodes { id value occurredAt } pageInfo { hasNextPage } }
      oldest: events(last: $eventsLast) { nodes { id } }
    }
  } }`;

/** `instant`'s calendar date in `zone`, from Intl alone. */
function localDay(instant: Date, zone: string): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(instant);
}

const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);
/** Weeks numbered from a Monday (1970-01-05 is day 4). */
const weekNumber = (day: string) => Math.floor((dayNumber(day) - 4) / 7);

/** Longest run of consecutive numbers, and the length of the run ending at the largest. */
function runs(periods: number[]): { longest: number; last: number; lastPeriod: number | null } {
  const sorted = [...new Set(periods)].sort((a, b) => a - b);
  let longest = 0, length = 0;
  sorted.forEach((p, i) => {
    length = i > 0 && sorted[i - 1] === p - 1 ? length + 1 : 1;
    longest = Math.max(longest, length);
  });
  return { longest, last: length, lastPeriod: sorted.at(-1) ?? null };
}

interface RawGoal {
  id: string;
  publicId: string;
  title: string;
  kind: string;
  cadence: string | null;
  timesPerWeek: number | null;
  startValue: number | null;
  targetValue: number | null;
  parentId: string | null;
  status: string;
}

/** What the list should answer for each goal, recounted from the tables. */
async function recount(g: TestSetup, eventsFirst: number, eventsLast: number) {
  const sql = g.t.deps.db.sql;
  const goals = await sql<RawGoal[]>`
    select id, public_id as "publicId", title, kind, cadence, times_per_week as "timesPerWeek",
           start_value as "startValue", target_value as "targetValue", parent_id as "parentId",
           status
    from goals order by created_at desc, public_id desc`;
  const days = await sql<{ goalId: string; day: string }[]>`
    select goal_id as "goalId", day::text from habit_check_ins
    union all select goal_id, day::text from streak_freeze_uses`;
  const checkIns = await sql<{ goalId: string; day: string }[]>`
    select goal_id as "goalId", day::text from habit_check_ins`;
  const events = await sql<
    { goalId: string; publicId: string; value: number; occurredAt: Date }[]
  >`
    select goal_id as "goalId", public_id as "publicId", value, occurred_at as "occurredAt"
    from goal_events order by occurred_at desc, public_id desc`;
  const today = localDay(g.clock.now(), ZONE);
  const figures = (goal: RawGoal) => {
    const own = events.filter((e) => e.goalId === goal.id);
    const checked = checkIns.filter((c) => c.goalId === goal.id).map((c) => c.day);
    const covered = days.filter((d) => d.goalId === goal.id).map((d) => d.day);
    const weekly = goal.cadence === "weekly";
    let currentValue: number, percent: number, periods: number[], todayPeriod: number;
    if (goal.kind === "target") {
      const start = goal.startValue ?? 0;
      currentValue = own.reduce((sum, e) => sum + e.value, start);
      const span = (goal.targetValue ?? start) - start;
      percent = span === 0 ? 1 : (currentValue - start) / span;
      periods = own.map((e) => dayNumber(localDay(e.occurredAt, ZONE)));
      todayPeriod = dayNumber(today);
    } else {
      const required = weekly ? goal.timesPerWeek ?? 1 : 1;
      currentValue = checked.filter((d) =>
        weekly ? weekNumber(d) === weekNumber(today) && d <= today : d === today
      ).length;
      percent = currentValue / required;
      if (weekly) {
        const perWeek = new Map<number, Set<string>>();
        for (const d of covered) {
          perWeek.set(weekNumber(d), (perWeek.get(weekNumber(d)) ?? new Set()).add(d));
        }
        periods = [...perWeek].filter(([, set]) =>
          set.size >= required
        ).map(([w]) => w);
        todayPeriod = weekNumber(today);
      } else {
        periods = covered.map(dayNumber);
        todayPeriod = dayNumber(today);
      }
    }
    const r = runs(periods);
    return {
      currentValue,
      percentComplete: Math.round(Math.min(1, Math.max(0, percent)) * 100 * 10) / 10,
      currentStreak: r.lastPeriod !== null && r.lastPeriod >= todayPeriod - 1 ? r.last : 0,
      longestStreak: r.longest,
      checkedInToday: checked.includes(today),
    };
  };
  return goals.filter((goal) => goal.parentId === null && goal.status !== "archived").map(
    (goal) => {
      const own = events.filter((e) => e.goalId === goal.id);
      return {
        id: goal.publicId,
        title: goal.title,
        ...figures(goal),
        subGoals: goals.filter((c) => c.parentId === goal.id).reverse().map((c) => ({
          id: c.publicId,
          title: c.title,
          currentValue: figures(c).currentValue,
        })),
        recent: {
          nodes: own.slice(0, eventsFirst).map((e) => ({
            id: e.publicId,
            value: e.value,
            occurredAt: e.occurredAt.toISOString(),
          })),
          pageInfo: { hasNextPage: own.length > eventsFirst },
        },
        oldest: { nodes: own.slice(-eventsLast).map((e) => ({ id: e.publicId })) },
      };
    },
  );
}

Deno.test("goals list: figures, streaks, sub-goals and events equal a recount from the raw rows, on every page", async () => {
  const g = await setup({ start: "2026-03-04T15:00:00Z" }); // a Wednesday
  const sql = g.t.deps.db.sql;
  try {
    const zone = await g.data(
      `mutation($z: String!) { updateMe(timeZone: $z) { ${USER_ERRORS} } }`,
      {
        z: ZONE,
      },
    );
    assert.deepEqual(zone.updateMe.errors, []);
    const idOf = async (publicId: string) =>
      (await sql<{ id: string; userId: string }[]>`
        select id, user_id as "userId" from goals where public_id = ${publicId}`)[0];
    const checkIns = async (publicId: string, days: string[]) => {
      const { id, userId } = await idOf(publicId);
      for (const day of days) {
        await sql`insert into habit_check_ins (public_id, goal_id, user_id, day)
          values (${`ci-${publicId}-${day}`}, ${id}, ${userId}, ${day})`;
      }
    };
    let eventNumber = 0;
    const events = async (publicId: string, list: [number, string][]) => {
      const { id, userId } = await idOf(publicId);
      for (const [value, at] of list) {
        await sql`insert into goal_events (public_id, goal_id, user_id, value, occurred_at)
          values (${`ev-${++eventNumber}`}, ${id}, ${userId}, ${value}, ${at})`;
      }
    };
    const step = () => g.clock.advance(1000);

    const daily = await addGoal(g, { title: "Daily", kind: "habit" });
    await checkIns(daily.id, [
      "2026-02-24",
      "2026-02-25",
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
    ]);
    step();
    const lapsed = await addGoal(g, { title: "Lapsed", kind: "habit" });
    await checkIns(lapsed.id, ["2026-02-26", "2026-02-27", "2026-02-28", "2026-03-01"]);
    step();
    const weekly = await addGoal(g, {
      title: "Weekly",
      kind: "habit",
      cadence: "weekly",
      timesPerWeek: 2,
    });
    await checkIns(weekly.id, [
      "2026-02-16",
      "2026-02-18",
      "2026-02-23",
      "2026-02-27",
      "2026-03-02",
    ]);
    step();
    const target = await addGoal(g, {
      title: "Target",
      kind: "target",
      startValue: 5,
      targetValue: 20,
    });
    // 04:30 UTC is the day before in New York; two events share one instant.
    await events(target.id, [
      [3, "2026-03-04T04:30:00Z"],
      [2.5, "2026-03-03T12:00:00Z"],
      [-1, "2026-03-03T12:00:00Z"],
      [4, "2026-03-02T18:00:00.123456Z"],
      [1, "2026-02-20T10:00:00Z"],
    ]);
    step();
    const part = await addGoal(g, { title: "Part habit", kind: "habit", parentGoalId: target.id });
    await checkIns(part.id, ["2026-03-04"]);
    step();
    await addGoal(g, {
      title: "Part target",
      kind: "target",
      targetValue: 3,
      parentGoalId: target.id,
    });
    step();
    const down = await addGoal(g, {
      title: "Down",
      kind: "target",
      startValue: 80,
      targetValue: 70,
    });
    await events(down.id, [[-4, "2026-03-04T14:00:00Z"]]);
    step();
    const archived = await addGoal(g, { title: "Archived", kind: "habit" });
    await g.data(
      `mutation($id: String!) { updateGoal(goalId: $id, status: archived) { ${USER_ERRORS} } }`,
      {
        id: archived.id,
      },
    );
    step();
    await addGoal(g, { title: "Empty", kind: "target", targetValue: 1 });

    const check = async (label: string) => {
      const expected = await recount(g, 2, 2);
      const vars = { events: 2, eventsLast: 2 };
      const all = await g.data(LIST, { ...vars, first: 20 });
      assert.deepEqual(all.goals.nodes, expected, `${label}: one page`);
      // Pages of three, forward, then the last two backward.
      const pages = [];
      let after: string | null = null;
      do {
        const page: {
          goals: { nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
        } = await g.data(LIST, { ...vars, first: 3, after });
        pages.push(...page.goals.nodes);
        after = page.goals.pageInfo.hasNextPage ? page.goals.pageInfo.endCursor : null;
      } while (after);
      assert.deepEqual(pages, expected, `${label}: pages of three`);
      const last = await g.data(LIST, { ...vars, last: 2 });
      assert.deepEqual(last.goals.nodes, expected.slice(-2), `${label}: the last two`);
    };
    await check("first read");
    await check("stored streak summaries");
    // Rows written outside the service, and the next day.
    await checkIns(lapsed.id, ["2026-03-03"]);
    await events(target.id, [[10, "2026-03-04T15:00:00.5Z"]]);
    await check("after direct writes");
    g.clock.advance(DAY_MS);
    await check("the next day");
  } finally {
    await g.close();
  }
});
