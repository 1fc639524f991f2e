import assert from "node:assert/strict";
import { createTestDatabase, DB_MODE, secondPool } from "../../support/db.ts";
import { createTestJobs } from "../../support/jobs.ts";
import { waitFor } from "../../support/wait.ts";
import { systemClock } from "../../../src/platform/clock.ts";
import type { Database } from "../../../src/platform/db.ts";

Deno.test("schedule: a slot fired by two instances at once runs its task once", async () => {
  const db = await createTestDatabase();
  const other: Database = DB_MODE === "postgres"
    ? { ...db, sql: secondPool(db, 2), close: async () => {} }
    : db;
  const slots: string[] = [];
  const systems = [db, other].map((d) => createTestJobs(d).jobs);
  for (const jobs of systems) {
    jobs.schedule("report", "*/5 * * * *", (slot) => {
      slots.push(slot.toISOString());
    });
  }
  try {
    const slot = new Date("2026-01-05T12:05:00Z");
    const fired = await Promise.all(
      [...systems, ...systems].map((j) => j.fireSchedule("report", slot)),
    );
    assert.equal(fired.filter(Boolean).length, 1);
    // A late or retried tick of the same slot creates nothing either.
    assert.equal(await systems[1].fireSchedule("report", slot), false);
    await systems[0].runUntilIdle();
    await systems[1].runUntilIdle();
    assert.deepEqual(slots, ["2026-01-05T12:05:00.000Z"]);
    assert.equal(await systems[0].fireSchedule("report", new Date("2026-01-05T12:10:00Z")), true);
  } finally {
    if (other !== db) await other.sql.end();
    await db.close();
  }
});

Deno.test("schedule: live cron ticks on two instances fire each slot once", async () => {
  const db = await createTestDatabase();
  const other: Database = DB_MODE === "postgres"
    ? { ...db, sql: secondPool(db, 2), close: async () => {} }
    : db;
  const slots: string[] = [];
  const systems = [db, other].map((d) =>
    createTestJobs(d, { clock: systemClock, pollIntervalMs: 20 }).jobs
  );
  for (const jobs of systems) {
    jobs.schedule("every-second", "* * * * * *", (slot) => {
      slots.push(slot.toISOString());
    });
  }
  try {
    await Promise.all(systems.map((j) => j.start()));
    // Waits for the ticks themselves (two slots run), however slow the machine is.
    await waitFor(() => slots.length >= 2, { timeoutMs: 15_000, what: "two slots to run" });
    await Promise.all(systems.map((j) => j.stop()));
    await systems[0].runUntilIdle();
    assert.ok(slots.length >= 2, `ticks: ${slots.join(", ")}`);
    assert.equal(new Set(slots).size, slots.length, `a slot ran twice: ${slots.join(", ")}`);
    for (const s of slots) assert.match(s, /\.000Z$/);
  } finally {
    await Promise.all(systems.map((j) => j.stop()));
    if (other !== db) await other.sql.end();
    await db.close();
  }
});

Deno.test("schedule: an invalid cron expression or a duplicate name is refused at registration", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db);
  try {
    assert.throws(() => jobs.schedule("bad", "every tuesday", async () => {}));
    jobs.schedule("ok", "0 * * * *", async () => {});
    assert.throws(() => jobs.schedule("ok", "0 * * * *", async () => {}), /already registered/);
    await assert.rejects(jobs.fireSchedule("missing", new Date()), /unknown schedule/);
  } finally {
    await db.close();
  }
});

Deno.test("schedule: fired-slot history older than a week is pruned daily", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db);
  jobs.schedule("report", "0 * * * *", () => {});
  try {
    await jobs.fireSchedule("report", new Date("2026-01-01T00:00:00Z"));
    await jobs.fireSchedule("report", new Date("2026-01-05T00:00:00Z"));
    await jobs.fireSchedule("jobs.prune_schedule_slots", new Date("2026-01-09T03:17:00Z"));
    await jobs.runUntilIdle();
    const rows = await db.sql`select name, slot from job_schedule_slots order by slot`;
    assert.deepEqual(rows.map((r) => [r.name, r.slot.toISOString()]), [
      ["report", "2026-01-05T00:00:00.000Z"],
      ["jobs.prune_schedule_slots", "2026-01-09T03:17:00.000Z"],
    ]);
  } finally {
    await db.close();
  }
});
