import assert from "node:assert/strict";
import { createTestDatabase, TEST_DATABASE_URL } from "../../support/db.ts";
import { openDatabase } from "../../../src/platform/db.ts";
import { createLogger } from "../../../src/platform/log.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

async function cli(env: Record<string, string>, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "seed-employees", ...args],
    env: { LOG_LEVEL: "error", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("seed-employees: creates, then updates by role; invalid records and files are reported", async () => {
  const dir = await Deno.makeTempDir();
  const testDb = TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  const env: Record<string, string> = testDb
    ? { DATABASE_URL: testDb.url, DATA_DIR: dir }
    : { DATA_DIR: dir };
  try {
    const file = `${dir}/employees.json`;
    const reporter = {
      name: "Reporter",
      role: "weekly_reporter",
      taskPrompt: "Write the weekly report.",
      scheduleCron: "0 9 * * 1",
      skills: ["weekly-report"],
    };
    const drafter = {
      name: "Drafter",
      role: "customer_support_drafter",
      taskPrompt: "Draft replies.",
      postFilterSkill: "brand-voice",
      monthlyBudgetCents: 500,
    };
    await Deno.writeTextFile(file, JSON.stringify([reporter, drafter]));
    const first = await cli(env, file);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), {
      created: ["weekly_reporter", "customer_support_drafter"],
      updated: [],
      failed: [],
    });

    await Deno.writeTextFile(
      file,
      JSON.stringify({
        employees: [
          { ...reporter, name: "Weekly Reporter" },
          { ...drafter, autonomyLevel: "semi_autonomous" },
          { ...reporter, role: "bad_cron", scheduleCron: "whenever" },
        ],
      }),
    );
    const second = await cli(env, file);
    assert.equal(second.code, 1);
    const report = JSON.parse(second.stdout);
    assert.deepEqual(report.updated, ["weekly_reporter"]);
    assert.deepEqual(report.failed.map((f: { role: string }) => f.role), [
      "customer_support_drafter",
      "bad_cron",
    ]);
    assert.match(report.failed[0].errors[0], /locked to shadow/);
    assert.match(second.stderr, /scheduleCron is not a valid cron expression/);

    await Deno.writeTextFile(file, JSON.stringify([{ name: "x" }]));
    const bad = await cli(env, file);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /role|taskPrompt/);
    assert.equal((await cli(env)).code, 2);

    const db = testDb ??
      await openDatabase({ dataDir: dir, log: createLogger({ level: "error" }) });
    try {
      const rows = await db.sql`
        select role, name, autonomy_level, schedule_cron, skills, post_filter_skill,
          monthly_budget_cents from ai_employees order by role`;
      assert.deepEqual(rows.map((r) => ({ ...r })), [
        {
          role: "customer_support_drafter",
          name: "Drafter",
          autonomy_level: "shadow",
          schedule_cron: null,
          skills: [],
          post_filter_skill: "brand-voice",
          monthly_budget_cents: 500,
        },
        {
          role: "weekly_reporter",
          name: "Weekly Reporter",
          autonomy_level: "shadow",
          schedule_cron: "0 9 * * 1",
          skills: ["weekly-report"],
          post_filter_skill: null,
          monthly_budget_cents: 3000,
        },
      ]);
    } finally {
      if (!testDb) await db.close();
    }
  } finally {
    await testDb?.close();
    await Deno.remove(dir, { recursive: true });
  }
});
