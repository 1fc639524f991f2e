import assert from "node:assert/strict";
import { createTestDatabase } from "../../support/db.ts";
import { createTestJobs } from "../../support/jobs.ts";
import type { ManualClock } from "../../../src/platform/clock.ts";

Deno.test("events: every subscriber receives a published event as its own job", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db);
  const got: string[] = [];
  jobs.subscribe("thing.happened", "audit", (p) => {
    got.push(`audit:${(p as { id: string }).id}`);
  });
  jobs.subscribe("thing.happened", "mailer", (p) => {
    got.push(`mailer:${(p as { id: string }).id}`);
  });
  try {
    await db.sql.begin(async (tx) => {
      await tx`insert into service_settings (key, value) values ('thing', '1')`;
      await jobs.publish(tx, "thing.happened", { id: "t1" });
    });
    assert.equal(await jobs.runUntilIdle(), 2);
    assert.deepEqual(got.sort(), ["audit:t1", "mailer:t1"]);
    assert.deepEqual((await jobs.figures()).queues, []);
  } finally {
    await db.close();
  }
});

Deno.test("events: an event published in a rolled-back transaction is never delivered", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db);
  let delivered = 0;
  jobs.subscribe("thing.happened", "audit", () => {
    delivered++;
  });
  try {
    await assert.rejects(db.sql.begin(async (tx) => {
      await jobs.publish(tx, "thing.happened", { id: "t1" });
      throw new Error("state change failed");
    }));
    assert.equal(await jobs.runUntilIdle(), 0);
    assert.equal(delivered, 0);
  } finally {
    await db.close();
  }
});

Deno.test("events: a failing subscriber retries alone; the others are not repeated", async () => {
  const db = await createTestDatabase();
  const { jobs, clock } = createTestJobs(db);
  let audits = 0;
  let mails = 0;
  jobs.subscribe("thing.happened", "audit", () => {
    audits++;
  });
  jobs.subscribe("thing.happened", "mailer", () => {
    mails++;
    if (mails === 1) throw new Error("smtp down");
  });
  try {
    await db.sql.begin((tx) => jobs.publish(tx, "thing.happened", {}));
    await jobs.runUntilIdle();
    (clock as ManualClock).advance(60_000);
    await jobs.runUntilIdle();
    assert.deepEqual([audits, mails], [1, 2]);
  } finally {
    await db.close();
  }
});

Deno.test("events: publishing an event nobody subscribes to writes nothing", async () => {
  const db = await createTestDatabase();
  const { jobs } = createTestJobs(db);
  try {
    await db.sql.begin((tx) => jobs.publish(tx, "nobody.listens", {}));
    const [{ count }] = await db.sql`select count(*)::int from jobs`;
    assert.equal(count, 0);
  } finally {
    await db.close();
  }
});
