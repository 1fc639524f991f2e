/**
 * The plans of the hot reads (issue 45, docs/scale.md): every statement the service sends while
 * answering `bench:scale`'s cases, on the bench's rows grown to a fifth of 1x, is explained with
 * sequential scans priced out (`enable_seqscan = off`), so a sequential scan left in a plan is one
 * no index can serve, whatever the table's size. None may remain on a table that grows without
 * bound. Both database modes.
 */
import assert from "node:assert/strict";
import { setup } from "../support/setup.ts";
import { createTestDatabase } from "../support/db.ts";
import { grow } from "../../bench/scale/grow.ts";
import { countsAt } from "../../bench/scale/sizes.ts";
import { baseOf, contextOf, createThroughApi } from "../../bench/scale/setup.ts";
import { CASES } from "../../bench/scale/cases.ts";
import { measureCases, serverLog } from "../../bench/scale/measure.ts";

const SECRET = "plans-test-workforce-secret";
const SIZE = 0.2;

/** Tables whose rows keep coming as the service is used. */
const GROWING = new Set([
  "users",
  "activation_steps",
  "community_posts",
  "community_members",
  "feed_items",
  "feed_follows",
  "notifications",
  "jobs",
  "challenge_participants",
  "challenge_contributions",
  "goal_events",
  "habit_check_ins",
  "goal_progress_days",
  "ai_runs",
  "ai_artifacts",
  "feedback_posts",
  "feedback_votes",
  "feedback_comments",
  "point_ledger",
  "mood_logs",
]);

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode, found: string[] = []): string[] {
  if (node["Node Type"] === "Seq Scan" && node["Relation Name"]) found.push(node["Relation Name"]);
  for (const child of node.Plans ?? []) seqScans(child, found);
  return found;
}

Deno.test("plans: no hot read scans a growing table from end to end", async () => {
  const sent = new Map<string, readonly unknown[]>();
  let recording = false;
  const db = await createTestDatabase({
    onStatement: (text, parameters) => {
      if (recording && /^\s*(with|select)\b/i.test(text)) sent.set(text, parameters);
    },
  });
  const s = await setup({
    db,
    start: new Date().toISOString(),
    admins: ["bench-admin"],
    serve: true,
    env: { WORKFORCE_WEBHOOK_SECRET: SECRET, RATE_LIMIT_USER_PER_MINUTE: "0" },
  });
  try {
    const tokens = { viewer: await s.token("bench-viewer"), admin: await s.token("bench-admin") };
    const ids = await createThroughApi(s.served.url, tokens);
    const base = await baseOf(db.sql, ids);
    await grow(db.sql, base, countsAt(0), countsAt(SIZE));
    await db.sql`analyze`;
    const ctx = await contextOf(db.sql, base, ids, SIZE);
    const client = { url: s.served.url, tokens, workforceSecret: SECRET, log: serverLog() };
    recording = true;
    const measured = await measureCases([{ label: "x", client, ctx }], CASES, 1, 0);
    recording = false;
    for (const [kase, figures] of measured.get("x")!) {
      assert.ok(!("error" in figures), `${kase.name}: ${JSON.stringify(figures)}`);
    }
    assert.ok(sent.size >= CASES.length, `${sent.size} statements recorded`);

    const scans: string[] = [];
    for (const [text, parameters] of sent) {
      const plan = await db.sql.begin(async (tx) => {
        await tx`set local enable_seqscan = off`;
        const [row] = await tx.unsafe<{ "QUERY PLAN": [{ Plan: PlanNode }] }[]>(
          `explain (format json) ${text}`,
          parameters as never[],
        );
        return row["QUERY PLAN"][0].Plan;
      });
      const growing = seqScans(plan).filter((table) => GROWING.has(table));
      if (growing.length) scans.push(`${growing.join(", ")}: ${text.replace(/\s+/g, " ")}`);
    }
    assert.deepEqual(scans, [], `sequential scans of growing tables:\n${scans.join("\n")}`);
  } finally {
    recording = false;
    await s.close();
  }
});
