import assert from "node:assert/strict";
import { recountKeptCounts } from "../../support/kept-counts.ts";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  asAdmin,
  createEmployee,
  sqlOf,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

const DAY = 86_400_000;

/**
 * History fixture: a first run `weeks` whole weeks (plus `extraDays`) ago and decided artifacts;
 * `recentRejected` of the rejections were reviewed 3 days ago, the others 20 days ago.
 */
async function history(
  ctx: WorkforceCtx,
  employeeId: string,
  h: {
    days: number;
    approved: number;
    rejected?: number;
    autoRejected?: number;
    recentRejected?: number;
    autoApproved?: number;
  },
) {
  const sql = sqlOf(ctx);
  const now = ctx.clock.now().getTime();
  const [{ id }] = await sql`select id from ai_employees where public_id = ${employeeId}`;
  const add = async (status: string, reviewedDaysAgo: number, auto = false) => {
    const created = new Date(now - h.days * DAY);
    const [run] = await sql`
      insert into ai_runs (public_id, employee_id, status, trigger, created_at, finished_at)
      values (${crypto.randomUUID()}, ${id}, 'succeeded', 'manual', ${created}, ${created})
      returning id`;
    await sql`
      insert into ai_artifacts (public_id, run_id, employee_id, kind, title, payload,
        approval_status, auto_approved, reviewed_at, created_at)
      values (${crypto.randomUUID()}, ${run.id}, ${id}, 'report', 't', 'p', ${status}, ${auto},
        ${new Date(now - reviewedDaysAgo * DAY)}, ${created})`;
  };
  for (let i = 0; i < h.approved; i++) await add("approved", 20);
  for (let i = 0; i < (h.autoApproved ?? 0); i++) await add("approved", 20, true);
  for (let i = 0; i < (h.rejected ?? 0); i++) {
    await add("rejected", i < (h.recentRejected ?? 0) ? 3 : 20);
  }
  for (let i = 0; i < (h.autoRejected ?? 0); i++) await add("auto_rejected", 20);
  await recountKeptCounts(sql);
}

const UPDATE = `mutation($id: String!, $level: AiAutonomyLevel, $confirm: Boolean) {
  updateAiEmployee(employeeId: $id, autonomyLevel: $level, confirmPromotion: $confirm) {
    employee { autonomyLevel promotionConfirmedAt } errors { code message field } } }`;

async function setLevel(ctx: WorkforceCtx, id: string, level: string, confirm?: boolean) {
  return (await asAdmin(ctx, UPDATE, { id, level, confirm })).updateAiEmployee;
}

/** The stored level (a refused change answers employee: null and changes nothing). */
async function levelOf(ctx: WorkforceCtx, id: string) {
  return (await asAdmin(ctx, `query($id: String!) { aiEmployee(id: $id) { autonomyLevel } }`, {
    id,
  })).aiEmployee.autonomyLevel;
}

async function criteria(ctx: WorkforceCtx, id: string) {
  return (await asAdmin(
    ctx,
    `query($id: String!) { aiEmployee(id: $id) {
      approvalRate { weekStart approved rejected autoRejected autoApproved approvalRate }
      promotionCriteria { approvalRate weeksActive recentRejections currentLevel nextLevel promotable missing } } }`,
    { id },
  )).aiEmployee;
}

Deno.test("autonomy: shadow -> semi_autonomous at and around each threshold", () =>
  withWorkforce(async (ctx) => {
    const table: [string, Parameters<typeof history>[2], boolean][] = [
      ["rate 81.8%, 4 weeks, old rejections", { days: 28, approved: 9, rejected: 2 }, true],
      ["rate exactly 80%", { days: 28, approved: 8, rejected: 2 }, false],
      ["auto-rejections count against the rate", { days: 28, approved: 8, autoRejected: 2 }, false],
      ["auto-approvals do not count for the rate", {
        days: 28,
        approved: 4,
        rejected: 1,
        autoApproved: 20,
      }, false],
      ["3 weeks and 6 days", { days: 27, approved: 20 }, false],
      ["a rejection 3 days ago", { days: 60, approved: 20, rejected: 1, recentRejected: 1 }, false],
      ["no decisions at all", { days: 60, approved: 0 }, false],
    ];
    for (const [label, h, allowed] of table) {
      const employee = await createEmployee(ctx);
      await history(ctx, employee.id, h);
      const c = (await criteria(ctx, employee.id)).promotionCriteria;
      const result = await setLevel(ctx, employee.id, "semi_autonomous");
      assert.equal(c.promotable, allowed, label);
      if (allowed) {
        assert.deepEqual(result.errors, [], label);
        assert.equal(result.employee.autonomyLevel, "semi_autonomous", label);
      } else {
        assert.equal(result.errors[0].code, "promotion_requirements_met", label);
        assert.equal(result.errors[0].field, "autonomyLevel", label);
        assert.equal(result.employee, null, label);
        assert.equal(await levelOf(ctx, employee.id), "shadow", label);
        assert.ok(c.missing.length > 0, label);
      }
    }
  }));

Deno.test("autonomy: semi -> autonomous needs > 95%, 8 weeks and confirmPromotion; no skipping; demotion one level", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    await history(ctx, employee.id, { days: 56, approved: 40, rejected: 1 }); // 97.6%
    const skip = await setLevel(ctx, employee.id, "autonomous", true);
    assert.match(skip.errors[0].message, /one level at a time/);
    assert.deepEqual((await setLevel(ctx, employee.id, "semi_autonomous")).errors, []);
    const c = (await criteria(ctx, employee.id)).promotionCriteria;
    assert.equal(c.weeksActive, 8);
    assert.equal(c.recentRejections, 0);
    assert.equal(c.nextLevel, "autonomous");
    assert.equal(c.promotable, true);
    const unconfirmed = await setLevel(ctx, employee.id, "autonomous");
    assert.match(unconfirmed.errors[0].message, /confirmPromotion/);
    assert.equal(unconfirmed.employee, null);
    const promoted = await setLevel(ctx, employee.id, "autonomous", true);
    assert.deepEqual(promoted.errors, []);
    assert.equal(promoted.employee.autonomyLevel, "autonomous");
    assert.equal(promoted.employee.promotionConfirmedAt, ctx.clock.now().toISOString());
    // Demotion needs no criteria but goes one level at a time (spec 3.4).
    const twoDown = await setLevel(ctx, employee.id, "shadow");
    assert.deepEqual(twoDown.errors, [{
      code: "autonomy_demotion",
      message: "demote one level at a time (autonomous -> semi_autonomous)",
      field: "autonomyLevel",
    }]);
    assert.equal(twoDown.employee, null);
    assert.equal(await levelOf(ctx, employee.id), "autonomous");
    assert.deepEqual((await setLevel(ctx, employee.id, "semi_autonomous")).errors, []);
    assert.deepEqual((await setLevel(ctx, employee.id, "shadow")).errors, []);

    const young = await createEmployee(ctx);
    await history(ctx, young.id, { days: 55, approved: 40 });
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${young.id}`;
    assert.match(
      (await setLevel(ctx, young.id, "autonomous", true)).errors[0].message,
      /at least 8/,
    );
    const mediocre = await createEmployee(ctx);
    await history(ctx, mediocre.id, { days: 90, approved: 19, rejected: 1 }); // exactly 95%
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${mediocre.id}`;
    assert.match(
      (await setLevel(ctx, mediocre.id, "autonomous", true)).errors[0].message,
      /above 95%/,
    );
    // The level is an enum: an unknown one is refused before anything runs.
    const bad = await gql(ctx.t, UPDATE, { id: mediocre.id, level: "supreme" }, {
      token: ctx.admin,
    });
    assert.equal(codeOf(bad), "BAD_USER_INPUT");
    assert.match(bad.body.errors[0].message, /\$level/);
  }));

Deno.test("autonomy: customer_support_drafter stays in shadow on every path", () =>
  withWorkforce(async (ctx) => {
    const drafter = await createEmployee(ctx, { role: "customer_support_drafter" });
    await history(ctx, drafter.id, { days: 200, approved: 100 });
    const result = await setLevel(ctx, drafter.id, "semi_autonomous");
    assert.match(result.errors[0].message, /customer_support_drafter role is locked to shadow/);
    assert.equal(result.errors[0].code, "promotion_requirements_met");
    assert.equal(await levelOf(ctx, drafter.id), "shadow");
    const c = (await criteria(ctx, drafter.id)).promotionCriteria;
    assert.equal(c.promotable, false);
    assert.equal(c.nextLevel, null);
    // The database refuses it too.
    await assert.rejects(
      sqlOf(
        ctx,
      )`update ai_employees set autonomy_level = 'autonomous' where public_id = ${drafter.id}`,
      /ai_employees_drafter_shadow/,
    );
  }));

Deno.test("autonomy: approvalRate exposes weekly decisions and the rate per week", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    await history(ctx, employee.id, { days: 8, approved: 2, rejected: 1, autoRejected: 1 });
    await history(ctx, employee.id, { days: 0, approved: 1 });
    const detail = await criteria(ctx, employee.id);
    assert.equal(detail.approvalRate.length, 12);
    const nonZero = detail.approvalRate.filter((w: { approved: number; rejected: number }) =>
      w.approved + w.rejected > 0
    );
    assert.deepEqual(nonZero, [
      {
        weekStart: "2025-12-22",
        approved: 2,
        rejected: 1,
        autoRejected: 1,
        autoApproved: 0,
        approvalRate: 0.5,
      },
      {
        weekStart: "2026-01-05",
        approved: 1,
        rejected: 0,
        autoRejected: 0,
        autoApproved: 0,
        approvalRate: 1,
      },
    ]);
    assert.equal(detail.promotionCriteria.approvalRate, 0.6);
    assert.equal(detail.promotionCriteria.weeksActive, 1);
  }));

const CONFIRM = `mutation($id: String!) {
  updateAiEmployee(employeeId: $id, confirmPromotion: true) {
    employee { autonomyLevel promotionConfirmedAt } errors { code message field } } }`;

Deno.test("autonomy: confirmPromotion alone promotes a semi-autonomous employee or answers why not", () =>
  withWorkforce(async (ctx) => {
    const ready = await createEmployee(ctx);
    await history(ctx, ready.id, { days: 56, approved: 40 });
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${ready.id}`;
    const promoted = (await asAdmin(ctx, CONFIRM, { id: ready.id })).updateAiEmployee;
    assert.deepEqual(promoted.errors, []);
    assert.equal(promoted.employee.autonomyLevel, "autonomous");
    assert.equal(promoted.employee.promotionConfirmedAt, ctx.clock.now().toISOString());

    const young = await createEmployee(ctx);
    await history(ctx, young.id, { days: 20, approved: 40 });
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${young.id}`;
    const refused = (await asAdmin(ctx, CONFIRM, { id: young.id })).updateAiEmployee;
    assert.equal(refused.errors[0].code, "promotion_requirements_met");
    assert.equal(refused.errors[0].field, "confirmPromotion");
    assert.match(refused.errors[0].message, /at least 8/);
    assert.equal(refused.employee, null);
    assert.equal(await levelOf(ctx, young.id), "semi_autonomous");

    const shadow = await createEmployee(ctx);
    const nothing = (await asAdmin(ctx, CONFIRM, { id: shadow.id })).updateAiEmployee;
    assert.deepEqual(nothing.errors, [{
      code: "invalid",
      message: "confirmPromotion confirms semi_autonomous -> autonomous; this employee is shadow",
      field: "confirmPromotion",
    }]);
    assert.equal(nothing.employee, null);
    assert.equal(await levelOf(ctx, shadow.id), "shadow");
  }));

Deno.test("autonomy: the weekly approval data and the promotion criteria share one approval rate", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    await history(ctx, employee.id, {
      days: 28,
      approved: 4,
      rejected: 1,
      autoApproved: 20,
      autoRejected: 0,
    });
    const { approvalRate: weeks, promotionCriteria } = await criteria(ctx, employee.id);
    const decided = weeks.filter((w: { approvalRate: number | null }) => w.approvalRate !== null);
    assert.equal(decided.length, 1);
    assert.deepEqual(
      [decided[0].approved, decided[0].rejected, decided[0].autoApproved],
      [4, 1, 20],
    );
    assert.equal(decided[0].approvalRate, 0.8);
    assert.equal(promotionCriteria.approvalRate, 0.8);
  }));
