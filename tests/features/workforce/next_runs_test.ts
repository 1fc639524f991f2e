/**
 * `AiEmployeeType.nextRuns(count)`: the slots the scheduler will start runs for, the same ones a
 * scheduler tick does start; none without a schedule, paused or archived; bad counts and
 * non-admins refused.
 */
import assert from "node:assert/strict";
import { codeOf, gql } from "../../support/graphql.ts";
import {
  asAdmin,
  createEmployee,
  secondWorkforceService,
  sqlOf,
  withWorkforce,
} from "../../support/workforce.ts";

const NEXT =
  `query($id: String!, $count: Int!) { aiEmployee(id: $id) { nextRuns(count: $count) } }`;
const DEFAULT = `query($id: String!) { aiEmployee(id: $id) { nextRuns } }`;

// A Monday, half an hour before a daily 09:00 slot.
const START = "2026-01-05T08:30:00Z";

Deno.test("nextRuns: the next slots of the cron in UTC, three unless asked", () =>
  withWorkforce(async (ctx) => {
    const daily = await createEmployee(ctx, { scheduleCron: "0 9 * * *" });
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: daily.id })).aiEmployee.nextRuns, [
      "2026-01-05T09:00:00.000Z",
      "2026-01-06T09:00:00.000Z",
      "2026-01-07T09:00:00.000Z",
    ]);
    const ten = (await asAdmin(ctx, NEXT, { id: daily.id, count: 10 })).aiEmployee.nextRuns;
    assert.equal(ten.length, 10);
    assert.equal(ten[9], "2026-01-14T09:00:00.000Z");
    assert.deepEqual(
      (await asAdmin(ctx, NEXT, { id: daily.id, count: 1 })).aiEmployee.nextRuns,
      ["2026-01-05T09:00:00.000Z"],
    );

    const weekdays = await createEmployee(ctx, { scheduleCron: "30 7 * * 1-5" });
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: weekdays.id })).aiEmployee.nextRuns, [
      "2026-01-06T07:30:00.000Z",
      "2026-01-07T07:30:00.000Z",
      "2026-01-08T07:30:00.000Z",
    ]);

    // More often than the 5-minute tick: the last slot of each tick's window.
    const busy = await createEmployee(ctx, { scheduleCron: "*/2 * * * *" });
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: busy.id })).aiEmployee.nextRuns, [
      "2026-01-05T08:34:00.000Z",
      "2026-01-05T08:40:00.000Z",
      "2026-01-05T08:44:00.000Z",
    ]);
  }, { start: START }));

Deno.test("nextRuns: the slot a scheduler tick then starts a run for", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { scheduleCron: "7 9 * * *" });
    const [next] = (await asAdmin(ctx, NEXT, { id: employee.id, count: 1 })).aiEmployee.nextRuns;
    assert.equal(next, "2026-01-05T09:07:00.000Z");
    const tick = new Date("2026-01-05T09:10:00Z");
    ctx.clock.set(tick);
    assert.equal(await secondWorkforceService(ctx).schedulerTick(tick), 1);
    const [run] = await sqlOf(ctx)<{ scheduledFor: Date }[]>`
      select scheduled_for as "scheduledFor" from ai_runs`;
    assert.equal(run.scheduledFor.toISOString(), next);
    assert.equal(
      (await asAdmin(ctx, NEXT, { id: employee.id, count: 1 })).aiEmployee.nextRuns[0],
      "2026-01-06T09:07:00.000Z",
    );
  }, { start: START }));

Deno.test("nextRuns: none without a schedule, while paused, once archived", () =>
  withWorkforce(async (ctx) => {
    const manual = await createEmployee(ctx);
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: manual.id })).aiEmployee.nextRuns, []);
    const paused = await createEmployee(ctx, { scheduleCron: "0 9 * * *" });
    await asAdmin(
      ctx,
      `mutation($id: String!) { pauseAiEmployee(employeeId: $id, active: false) { errors { code } } }`,
      { id: paused.id },
    );
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: paused.id })).aiEmployee.nextRuns, []);
    const archived = await createEmployee(ctx, { scheduleCron: "0 9 * * *" });
    await asAdmin(
      ctx,
      `mutation($id: String!) { archiveAiEmployee(employeeId: $id) { errors { code } } }`,
      { id: archived.id },
    );
    assert.deepEqual((await asAdmin(ctx, DEFAULT, { id: archived.id })).aiEmployee.nextRuns, []);
  }, { start: START }));

Deno.test("nextRuns: a count outside 1..10, of another type or null is refused; admins only", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx, { scheduleCron: "0 9 * * *" });
    const cases: [unknown, RegExp][] = [
      [0, /"count": from 1 to 10/],
      [-1, /"count": from 1 to 10/],
      [11, /"count": from 1 to 10/],
      [2 ** 31, /\$count/],
      ["3", /\$count/],
      [1.5, /\$count/],
      ["3\u0000", /\$count/],
      ["x".repeat(10_000), /\$count/],
      [null, /\$count/],
    ];
    for (const [count, message] of cases) {
      const res = await gql(ctx.t, NEXT, { id: employee.id, count }, { token: ctx.admin });
      assert.equal(res.status, 200, String(count).slice(0, 20));
      assert.equal(codeOf(res), "BAD_USER_INPUT", String(count).slice(0, 20));
      assert.match(res.body.errors[0].message, message);
    }
    const inline = await gql(
      ctx.t,
      `query($id: String!) { aiEmployee(id: $id) { nextRuns(count: "3") } }`,
      { id: employee.id },
      { token: ctx.admin },
    );
    assert.ok(inline.body.errors?.length, "a string literal for count is refused");
    assert.equal(inline.body.data ?? undefined, undefined);

    const user = await gql(ctx.t, DEFAULT, { id: employee.id }, { token: ctx.user });
    assert.equal(codeOf(user), "FORBIDDEN");
    assert.equal(user.body.data?.aiEmployee ?? null, null);
    const anonymous = await gql(ctx.t, DEFAULT, { id: employee.id });
    assert.equal(codeOf(anonymous), "UNAUTHENTICATED");
  }, { start: START }));
