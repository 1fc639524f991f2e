import assert from "node:assert/strict";
import {
  allowedKindsProblem,
  appendRejection,
  autoApproves,
  type AutonomyLevel,
  autonomyLevelOf,
  budgetAlertLevel,
  budgetExceeded,
  canTransitionArtifact,
  canTransitionRun,
  defaultAllowedKinds,
  dueSlot,
  employeeInputErrors,
  initialApprovalStatus,
  isValidCron,
  kindAllowed,
  levelsSettledBy,
  measureEdit,
  missingCriteria,
  monthOf,
  nextLevel,
  promotionRequirementsMet,
  type PromotionStats,
  rejectionReasonError,
  requestedLevel,
  reviewError,
  runBudgetUsd,
  weeklySeries,
  weeksActive,
  weekStart,
} from "../../../src/features/workforce/rules.ts";
import { buildRunRequest, runRepository } from "../../../src/features/workforce/protocol.ts";
import { ARTIFACT_KINDS, RunRequestSchema } from "../../../src/platform/contract/mod.ts";

const stats = (rate: number | null, weeks: number, recent = 0): PromotionStats => ({
  approvalRate: rate,
  weeksActive: weeks,
  recentRejections: recent,
});

const promote = (
  from: "shadow" | "semi_autonomous" | "autonomous",
  to: "shadow" | "semi_autonomous" | "autonomous",
  s: PromotionStats,
  confirmPromotion = false,
  role = "weekly_reporter",
) => promotionRequirementsMet({ from, to, role, stats: s, confirmPromotion });

Deno.test("rules: shadow -> semi_autonomous needs rate > 80%, 4 weeks and no recent rejection", () => {
  assert.equal(promote("shadow", "semi_autonomous", stats(0.81, 4)), null);
  assert.match(promote("shadow", "semi_autonomous", stats(0.8, 4))!, /above 80%/);
  assert.match(promote("shadow", "semi_autonomous", stats(0.79, 10))!, /above 80%/);
  assert.match(promote("shadow", "semi_autonomous", stats(null, 10))!, /above 80% \(is none\)/);
  assert.match(promote("shadow", "semi_autonomous", stats(0.9, 3))!, /at least 4 \(is 3\)/);
  assert.equal(promote("shadow", "semi_autonomous", stats(1, 5, 0)), null);
  assert.match(promote("shadow", "semi_autonomous", stats(1, 5, 1))!, /last 2 weeks/);
  assert.match(
    promote("shadow", "semi_autonomous", stats(0.5, 1, 2))!,
    /^promotion_requirements_met: /,
  );
});

Deno.test("rules: semi_autonomous -> autonomous needs rate > 95%, 8 weeks and confirmation", () => {
  assert.equal(promote("semi_autonomous", "autonomous", stats(0.96, 8), true), null);
  assert.match(
    promote("semi_autonomous", "autonomous", stats(0.96, 8), false)!,
    /confirmPromotion/,
  );
  assert.match(promote("semi_autonomous", "autonomous", stats(0.95, 8), true)!, /above 95%/);
  assert.match(promote("semi_autonomous", "autonomous", stats(0.99, 7), true)!, /at least 8/);
  // Recent rejections only gate the first promotion.
  assert.equal(promote("semi_autonomous", "autonomous", stats(0.99, 9, 3), true), null);
});

Deno.test("rules: no skipping a level either way; demotion and no change need no criteria", () => {
  assert.match(promote("shadow", "autonomous", stats(1, 100), true)!, /one level at a time/);
  assert.equal(promote("autonomous", "semi_autonomous", stats(0, 0, 9)), null);
  assert.match(promote("autonomous", "shadow", stats(0, 0, 9))!, /^autonomy_demotion: /);
  assert.equal(promote("semi_autonomous", "shadow", stats(null, 0)), null);
  assert.equal(promote("shadow", "shadow", stats(null, 0)), null);
});

Deno.test("rules: customer_support_drafter never leaves shadow", () => {
  const role = "customer_support_drafter";
  assert.match(promote("shadow", "semi_autonomous", stats(1, 50), false, role)!, /locked/);
  assert.equal(promote("shadow", "shadow", stats(1, 50), false, role), null);
  assert.equal(nextLevel("shadow", role), null);
  assert.deepEqual(missingCriteria("shadow", role, stats(1, 50)), [
    "the customer_support_drafter role is locked to shadow",
  ]);
  assert.equal(nextLevel("shadow", "x_y"), "semi_autonomous");
  assert.equal(nextLevel("autonomous", "x_y"), null);
});

Deno.test("rules: weeks active counts whole weeks since the first run", () => {
  const now = new Date("2026-03-01T00:00:00Z");
  assert.equal(weeksActive(null, now), 0);
  assert.equal(weeksActive(new Date(now.getTime() - 28 * 86_400_000), now), 4);
  assert.equal(weeksActive(new Date(now.getTime() - 28 * 86_400_000 + 1), now), 3);
});

Deno.test("rules: autonomy gate by level and kind", () => {
  assert.equal(autoApproves("shadow", "report"), false);
  for (const kind of ["report", "recommendation", "slack_message"] as const) {
    assert.equal(autoApproves("semi_autonomous", kind), true);
  }
  for (const kind of ["code_patch", "email_template", "draft_post", "other"] as const) {
    assert.equal(autoApproves("semi_autonomous", kind), false);
    assert.equal(autoApproves("autonomous", kind), true);
  }
});

Deno.test("rules: budget cap compares this month's spend in cents", () => {
  assert.equal(budgetExceeded(29.99, 3000), false);
  assert.equal(budgetExceeded(30, 3000), true);
  assert.equal(budgetExceeded(29.991, 3000), true, "a fraction of a cent over rounds up");
  assert.equal(budgetExceeded(0, 0), true, "a zero cap allows nothing");
  assert.equal(budgetAlertLevel(23.99, 30), null);
  assert.equal(budgetAlertLevel(24, 30), "warning");
  assert.equal(budgetAlertLevel(30, 30), "critical");
  assert.deepEqual(levelsSettledBy("critical"), ["warning", "critical"]);
  const m = monthOf(new Date("2026-12-31T23:59:59Z"));
  assert.equal(m.label, "2026-12");
  assert.equal(m.start.toISOString(), "2026-12-01T00:00:00.000Z");
  assert.equal(m.end.toISOString(), "2027-01-01T00:00:00.000Z");
});

Deno.test("rules: edit distance and ratio with the heavy-editing flag above 0.3", () => {
  assert.deepEqual(measureEdit("kitten", "sitting"), {
    editDistance: 3,
    editRatio: 3 / 7,
    heavy: true,
  });
  assert.deepEqual(measureEdit("abcdefghij", "abcdefgxyz"), {
    editDistance: 3,
    editRatio: 0.3,
    heavy: false,
  });
  assert.deepEqual(measureEdit("same", "same"), { editDistance: 0, editRatio: 0, heavy: false });
  assert.deepEqual(measureEdit("", ""), { editDistance: 0, editRatio: 0, heavy: false });
});

Deno.test("rules: rejection reasons and the FIFO memory of five", () => {
  assert.match(rejectionReasonError("  too short ")!, /at least 10/);
  assert.equal(rejectionReasonError("exactly 10"), null);
  assert.match(rejectionReasonError("x".repeat(2001))!, /at most/);
  let list: string[] = [];
  for (let i = 1; i <= 7; i++) list = appendRejection(list, `reason ${i}`);
  assert.deepEqual(list, ["reason 3", "reason 4", "reason 5", "reason 6", "reason 7"]);
  assert.deepEqual(appendRejection({ not: "a list" }, "r"), ["r"]);
});

Deno.test("rules: run and artifact status transitions", () => {
  assert.ok(canTransitionRun("queued", "running"));
  assert.ok(canTransitionRun("running", "succeeded"));
  assert.ok(canTransitionRun("running", "failed"));
  assert.ok(canTransitionRun("queued", "failed"));
  assert.ok(!canTransitionRun("succeeded", "failed"));
  assert.ok(!canTransitionRun("failed", "running"));
  assert.ok(!canTransitionRun("running", "queued"));
  assert.ok(canTransitionArtifact("pending", "approved"));
  assert.ok(canTransitionArtifact("pending", "rejected"));
  assert.ok(!canTransitionArtifact("approved", "rejected"));
  assert.ok(!canTransitionArtifact("auto_rejected", "approved"));
  assert.equal(initialApprovalStatus(null), "pending");
  assert.equal(initialApprovalStatus({ passed: true }), "pending");
  assert.equal(initialApprovalStatus({ passed: false }), "auto_rejected");
});

Deno.test("rules: cron validation and due slots within a tick window", () => {
  assert.ok(isValidCron("0 9 * * 1"));
  assert.ok(!isValidCron("every monday"));
  assert.ok(!isValidCron("61 * * * *"));
  const to = new Date("2026-01-05T09:00:00Z");
  const from = new Date(to.getTime() - 5 * 60_000);
  assert.equal(dueSlot("0 9 * * 1", from, to)?.toISOString(), "2026-01-05T09:00:00.000Z");
  assert.equal(dueSlot("0 10 * * 1", from, to), null);
  assert.equal(dueSlot("* * * * *", from, to)?.toISOString(), "2026-01-05T09:00:00.000Z");
  assert.equal(dueSlot("0 9 * * 1", new Date(to), new Date(to.getTime() + 5 * 60_000)), null);
  assert.equal(dueSlot("garbage", from, to), null);
});

Deno.test("rules: employee input validation names each bad field", () => {
  assert.deepEqual(
    employeeInputErrors({ name: "R", role: "weekly_reporter", taskPrompt: "Do it" }, true),
    [],
  );
  const errors = employeeInputErrors({
    name: " ",
    role: "Bad Role",
    taskPrompt: "x".repeat(50_001),
    monthlyBudgetCents: -1,
    scheduleCron: "nope",
    skills: ["ok", "../etc"],
    postFilterSkill: "a/b",
  }, true);
  for (
    const field of [
      "name",
      "role",
      "taskPrompt",
      "monthlyBudgetCents",
      "scheduleCron",
      "skills",
      "postFilterSkill",
    ]
  ) {
    assert.ok(
      errors.some((e) => e.code === "invalid" && e.field === field && e.message.startsWith(field)),
      `${field} in ${errors.map((e) => e.message).join(" | ")}`,
    );
  }
  assert.deepEqual(employeeInputErrors({}, true), [
    { code: "invalid", message: "name is required", field: "name" },
    { code: "invalid", message: "taskPrompt is required", field: "taskPrompt" },
    { code: "invalid", message: "role is required", field: "role" },
  ]);
  assert.deepEqual(employeeInputErrors({}, false), []);
});

Deno.test("rules: weekly series fills empty weeks, oldest first", () => {
  const now = new Date("2026-01-07T12:00:00Z"); // a Wednesday
  assert.equal(weekStart(now).toISOString(), "2026-01-05T00:00:00.000Z");
  const series = weeklySeries(
    [
      {
        weekStart: new Date("2025-12-29T00:00:00Z"),
        approved: 2,
        rejected: 1,
        autoRejected: 0,
        autoApproved: 3,
      },
    ],
    now,
    3,
  );
  assert.deepEqual(
    series.map((w) => [w.weekStart.toISOString().slice(0, 10), w.approved, w.autoApproved]),
    [
      ["2025-12-22", 0, 0],
      ["2025-12-29", 2, 3],
      ["2026-01-05", 0, 0],
    ],
  );
});

Deno.test("protocol: the run request carries recent_rejections, tools, kinds, context and the budget left", () => {
  const body = buildRunRequest(
    {
      publicId: "run-public-id-000000000000",
      trigger: "schedule",
      scheduledFor: new Date("2026-03-02T09:00:00Z"),
    },
    {
      publicId: "emp-public-id",
      name: "Reporter",
      role: "weekly_reporter",
      taskPrompt: "Write",
      modelPreference: "gpt-4o-mini",
      postFilterSkill: null,
      skills: ["weekly-report"],
      tools: ["activation_funnel"],
      allowedKinds: ["report", "recommendation"],
      monthlyBudgetCents: 50,
    },
    [{ key: "tone", value: { calm: true } }],
    {
      now: new Date("2026-03-02T09:00:04Z"),
      lastSucceededAt: new Date("2026-02-23T09:01:00Z"),
      monthSpendUsd: 0.2,
    },
  );
  assert.deepEqual(body, {
    run_id: "run-public-id-000000000000",
    employee: {
      id: "emp-public-id",
      name: "Reporter",
      role: "weekly_reporter",
      task_prompt: "Write",
      model: "gpt-4o-mini",
      post_filter_skill: null,
      skills: ["weekly-report"],
      tools: ["activation_funnel"],
      allowed_kinds: ["report", "recommendation"],
    },
    context: {
      now: "2026-03-02T09:00:04.000Z",
      trigger: "schedule",
      scheduled_for: "2026-03-02T09:00:00.000Z",
      last_succeeded_at: "2026-02-23T09:01:00.000Z",
    },
    repository: null,
    memory: { recent_rejections: [], tone: { calm: true } },
    budget_usd: 0.3,
    max_turns: 20,
  });
  assert.ok(RunRequestSchema.safeParse(body).success, "the contract accepts it");
});

Deno.test("protocol: a run with the repo tool names the delivery repository at its default branch", () => {
  assert.deepEqual(runRepository(["repo"], "acme/site"), { repo: "acme/site", ref: "HEAD" });
  assert.equal(runRepository(["repo"], undefined), null, "no GITHUB_REPO: no repository");
  assert.equal(runRepository(["new_feedback"], "acme/site"), null, "no repo tool: none");
  assert.ok(
    RunRequestSchema.shape.repository.safeParse(runRepository(["repo"], "acme/site")).success,
  );
});

Deno.test("rules: a run's budget is the smaller of the per-run cap and what is left this month", () => {
  assert.equal(runBudgetUsd(3000, 0), 1);
  assert.equal(runBudgetUsd(3000, 29.5), 0.5);
  assert.equal(runBudgetUsd(50, 0.2), 0.3);
  assert.equal(runBudgetUsd(3000, 30), 0.01, "a run is never dispatched with nothing");
  assert.equal(runBudgetUsd(3000, 45), 0.01);
});

Deno.test("rules: tools and kinds an employee is given are checked; the drafter drafts emails only", () => {
  const errors = (input: Record<string, unknown>) =>
    employeeInputErrors(input, false).map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(errors({ tools: ["activation_funnel", "new_feedback"] }), []);
  assert.deepEqual(errors({ tools: [] }), []);
  assert.match(errors({ tools: ["shell"] })[0], /^tools: tools must be among activation_funnel/);
  assert.deepEqual(errors({ tools: ["repo", "mcp__docs", "mcp__docs__search"] }), []);
  assert.match(errors({ tools: ["mcp__"] })[0], /^tools: tools must be among/);
  assert.match(
    errors({ tools: Array.from({ length: 51 }, (_, i) => `mcp__s${i}`) })[0],
    /at most 50/,
  );
  assert.match(errors({ tools: ["new_feedback", "new_feedback"] })[0], /repeat/);
  assert.match(errors({ tools: ["x\u0000".repeat(100)] })[0], /unknown/);
  assert.deepEqual(errors({ allowedKinds: ["report"] }), []);
  assert.match(errors({ allowedKinds: [] })[0], /^allowedKinds: .*at least one/);
  assert.match(errors({ allowedKinds: ["poem"] })[0], /^allowedKinds: /);
  assert.deepEqual(defaultAllowedKinds("weekly_reporter"), [...ARTIFACT_KINDS]);
  assert.deepEqual(defaultAllowedKinds("customer_support_drafter"), ["email_template"]);
  assert.equal(allowedKindsProblem("weekly_reporter", ["report"]), null);
  assert.equal(allowedKindsProblem("customer_support_drafter", ["email_template"]), null);
  assert.match(
    allowedKindsProblem("customer_support_drafter", ["email_template", "slack_message"])!,
    /may only produce email_template/,
  );
  assert.equal(kindAllowed(["report"], "report"), true);
  assert.equal(kindAllowed(["report"], "slack_message"), false);
});

Deno.test("rules: an artifact with an unsupported figure is never auto-approved", () => {
  assert.equal(autoApproves("semi_autonomous", "report", []), true);
  assert.equal(autoApproves("semi_autonomous", "report", ["1,240"]), false);
  assert.equal(autoApproves("autonomous", "code_patch", ["12.5%"]), false);
});

Deno.test("rules: only pending artifacts are reviewed; autonomy levels are known names", () => {
  assert.equal(reviewError("pending", "approved"), null);
  assert.equal(
    reviewError("rejected", "approved"),
    "only pending artifacts can be approved (this one is rejected)",
  );
  assert.equal(
    reviewError("auto_rejected", "rejected"),
    "only pending artifacts can be rejected (this one is auto_rejected)",
  );
  assert.equal(autonomyLevelOf(undefined), undefined);
  assert.equal(autonomyLevelOf("semi_autonomous"), "semi_autonomous");
  assert.equal(autonomyLevelOf("boss"), "invalid");
});

Deno.test("rules: demotion one level at a time; confirmPromotion alone asks for autonomous", () => {
  const stats = { approvalRate: 1, weeksActive: 20, recentRejections: 0 };
  const check = (from: AutonomyLevel, to: AutonomyLevel) =>
    promotionRequirementsMet({ from, to, role: "writer", stats, confirmPromotion: true });
  assert.equal(check("autonomous", "semi_autonomous"), null);
  assert.equal(check("semi_autonomous", "shadow"), null);
  assert.equal(
    check("autonomous", "shadow"),
    "autonomy_demotion: demote one level at a time (autonomous -> semi_autonomous)",
  );
  assert.deepEqual(requestedLevel("semi_autonomous", undefined, true), { to: "autonomous" });
  assert.deepEqual(requestedLevel("shadow", undefined, false), { to: "shadow" });
  assert.deepEqual(requestedLevel("shadow", "semi_autonomous", true), { to: "semi_autonomous" });
  assert.ok("error" in requestedLevel("autonomous", undefined, true));
});
