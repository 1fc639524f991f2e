/**
 * The embedded database's daily upkeep (src/platform/db/maintenance.ts): PGlite runs no
 * autovacuum, so the service vacuums and analyses the tables that changed; on PostgreSQL the
 * server's autovacuum does it and the schedule is not registered.
 */
import assert from "node:assert/strict";
import { DB_MODE } from "../../support/db.ts";
import { logged } from "../../support/app.ts";
import { setup, type TestSetup } from "../../support/setup.ts";
import { addGoal } from "../../support/goals.ts";

const SCHEDULE = "platform.embedded_vacuum";

const stats = async (s: TestSetup, table: string) => {
  const [row] = await s.t.deps.db.sql<{ dead: number; vacuumed: boolean; analysed: boolean }[]>`
    select n_dead_tup::int as dead, last_vacuum is not null as vacuumed,
           last_analyze is not null as analysed
    from pg_stat_user_tables where relname = ${table}`;
  return row;
};

Deno.test(`embedded upkeep: changed tables vacuumed and analysed daily (${DB_MODE})`, async () => {
  const s = await setup({ start: "2026-01-05T12:00:00Z" });
  try {
    const names = (await s.t.app.jobs.schedules()).map((x) => x.name);
    if (DB_MODE === "postgres") {
      assert.ok(!names.includes(SCHEDULE), "PostgreSQL's autovacuum does it");
      return;
    }
    assert.ok(names.includes(SCHEDULE));
    // Rows written and deleted: dead rows autovacuum would have cleared.
    const goals = [];
    for (let i = 0; i < 5; i++) goals.push(await addGoal(s, { title: `Goal ${i}`, kind: "habit" }));
    for (const goal of goals.slice(0, 3)) {
      const deleted = await s.data(
        `mutation($id: String!) { deleteGoal(goalId: $id) { errors { code } } }`,
        { id: goal.id },
      );
      assert.deepEqual(deleted.deleteGoal.errors, []);
    }

    await s.t.deps.db.sql`select pg_stat_force_next_flush()`;
    const before = await stats(s, "goals");
    assert.ok(before.dead >= 3, `dead rows before: ${before.dead}`);

    await s.t.app.jobs.fireSchedule(SCHEDULE, new Date("2026-01-06T04:53:00Z"));
    await s.t.app.jobs.runUntilIdle();

    const [line] = logged(s.t.log, "embedded database vacuumed");
    assert.ok(line, "the upkeep logged what it did");
    assert.ok(Number(line.tables) > 0);
    await s.t.deps.db.sql`select pg_stat_force_next_flush()`;
    const after = await stats(s, "goals");
    assert.deepEqual(after, { dead: 0, vacuumed: true, analysed: true });
  } finally {
    await s.close();
  }
});
