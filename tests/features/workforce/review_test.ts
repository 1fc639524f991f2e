import assert from "node:assert/strict";
import { logged } from "../../support/app.ts";
import {
  ARTIFACT_FIELDS,
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  sqlOf,
  triggerRun,
  withWorkforce,
  type WorkforceCtx,
} from "../../support/workforce.ts";

async function artifactOfRun(ctx: WorkforceCtx, runId: string) {
  const data = await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { artifacts { ${ARTIFACT_FIELDS} } } }`,
    { id: runId },
  );
  return data.aiRun.artifacts[0];
}

const APPROVE = `mutation($id: String!, $edit: String) {
  approveAiArtifact(artifactId: $id, editedPayload: $edit) { artifact { ${ARTIFACT_FIELDS} } errors { code message field } } }`;
const REJECT = `mutation($id: String!, $reason: String!) {
  rejectAiArtifact(artifactId: $id, rejectionReason: $reason) { artifact { ${ARTIFACT_FIELDS} } errors { code message field } } }`;

/** Delivery jobs queued, or run: the delivery handler (issue 7) consumes the job and leaves a
 * `delivery_status` (here `failed`: this harness configures no GitHub or IMAP). */
async function deliveryJobs(ctx: WorkforceCtx) {
  return [
    ...await sqlOf(ctx)<{ payload: { artifactId: string } }[]>`
    select payload from jobs where name = 'ai_workforce.deliver_artifact'
    union all
    select jsonb_build_object('artifactId', public_id) from ai_artifacts
    where delivery_status is not null`,
  ];
}

async function memoryOf(ctx: WorkforceCtx, employeeId: string) {
  const data = await asAdmin(
    ctx,
    `query($id: String!) { aiEmployee(id: $id) { memories { key value } } }`,
    { id: employeeId },
  );
  return Object.fromEntries(
    data.aiEmployee.memories.map((m: { key: string; value: unknown }) => [
      m.key,
      m.value,
    ]),
  );
}

Deno.test("review: approve with edits records distance, ratio, original and reviewer; delivery job enqueued", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Post", payload: "kitten" },
    });
    const artifact = await artifactOfRun(ctx, runId);
    assert.equal(artifact.approvalStatus, "pending");

    const empty = await asAdmin(ctx, APPROVE, { id: artifact.id, edit: "   " });
    assert.deepEqual(empty.approveAiArtifact, {
      artifact: null,
      errors: [{
        code: "invalid",
        message: "editedPayload must not be empty",
        field: "editedPayload",
      }],
    });
    assert.equal((await artifactOfRun(ctx, runId)).approvalStatus, "pending");

    ctx.clock.advance(1000);
    const { approveAiArtifact: approved } = await asAdmin(ctx, APPROVE, {
      id: artifact.id,
      edit: "sitting",
    });
    assert.deepEqual(approved.errors, []);
    const a = approved.artifact;
    assert.equal(a.approvalStatus, "approved");
    assert.equal(a.payload, "sitting");
    assert.equal(a.originalPayload, "kitten");
    assert.equal(a.editDistance, 3);
    assert.equal(a.editRatio, 3 / 7);
    assert.equal(a.heavyEdit, true);
    assert.equal(a.reviewedBy, "admin");
    assert.equal(a.reviewedAt, ctx.clock.now().toISOString());
    assert.ok(a.reviewer.id);

    assert.deepEqual(await deliveryJobs(ctx), [], "the subscriber has not run yet");
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual((await deliveryJobs(ctx)).map((j) => j.payload), [
      { artifactId: a.id, approvedAt: a.reviewedAt },
    ]);

    const again = await asAdmin(ctx, APPROVE, { id: artifact.id, edit: "other" });
    assert.match(again.approveAiArtifact.errors[0].message, /only pending/);
    assert.equal(again.approveAiArtifact.errors[0].code, "not_allowed");
    assert.equal(again.approveAiArtifact.artifact, null);
    assert.equal((await artifactOfRun(ctx, runId)).payload, "sitting");
    const rejectApproved = await asAdmin(ctx, REJECT, {
      id: artifact.id,
      reason: "changed my mind now",
    });
    assert.match(rejectApproved.rejectAiArtifact.errors[0].message, /only pending/);
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal((await deliveryJobs(ctx)).length, 1);
  }));

Deno.test("review: approve without edits keeps the payload and records no distance", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const runId = await completeRun(ctx, employee.id);
    const artifact = await artifactOfRun(ctx, runId);
    const { approveAiArtifact: approved } = await asAdmin(ctx, APPROVE, { id: artifact.id });
    assert.deepEqual(approved.errors, []);
    assert.equal(approved.artifact.payload, artifact.payload);
    assert.equal(approved.artifact.originalPayload, null);
    assert.equal(approved.artifact.editDistance, null);
    assert.equal(approved.artifact.heavyEdit, false);
  }));

Deno.test("review: rejection needs 10 characters; reasons feed recent_rejections (newest 5) into later runs", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const firstRun = await completeRun(ctx, employee.id);
    const first = await artifactOfRun(ctx, firstRun);
    for (const reason of ["", "too short", "   short   "]) {
      const bad = await asAdmin(ctx, REJECT, { id: first.id, reason });
      assert.match(bad.rejectAiArtifact.errors[0].message, /at least 10/);
      assert.equal(bad.rejectAiArtifact.errors[0].code, "invalid");
      assert.equal(bad.rejectAiArtifact.errors[0].field, "rejectionReason");
      assert.equal(bad.rejectAiArtifact.artifact, null);
      assert.equal((await artifactOfRun(ctx, firstRun)).approvalStatus, "pending");
    }
    assert.deepEqual(await memoryOf(ctx, employee.id), { last_signups: 120 });

    const ok = await asAdmin(ctx, REJECT, { id: first.id, reason: "  reason number 1  " });
    assert.deepEqual(ok.rejectAiArtifact.errors, []);
    assert.equal(ok.rejectAiArtifact.artifact.approvalStatus, "rejected");
    assert.equal(ok.rejectAiArtifact.artifact.rejectionReason, "reason number 1");
    for (let i = 2; i <= 6; i++) {
      const run = await completeRun(ctx, employee.id);
      const artifact = await artifactOfRun(ctx, run);
      assert.deepEqual(
        (await asAdmin(ctx, REJECT, { id: artifact.id, reason: `reason number ${i}` }))
          .rejectAiArtifact.errors,
        [],
      );
    }
    const expected = [2, 3, 4, 5, 6].map((i) => `reason number ${i}`);
    assert.deepEqual((await memoryOf(ctx, employee.id)).recent_rejections, expected);

    // A run's memory cannot overwrite the service-owned key.
    await completeRun(ctx, employee.id, {
      memory: { recent_rejections: ["forged"], tone: "calm" },
    });
    const memory = await memoryOf(ctx, employee.id);
    assert.deepEqual(memory.recent_rejections, expected);
    assert.equal(memory.tone, "calm");

    await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle();
    const last = ctx.runner.runs().at(-1)!;
    assert.deepEqual((last.memory as Record<string, unknown>).recent_rejections, expected);
    assert.equal((last.memory as Record<string, unknown>).tone, "calm");
  }));

Deno.test("review: autonomy levels auto-approve through the same path with a system reviewer", () =>
  withWorkforce(async (ctx) => {
    const semi = await createEmployee(ctx);
    const auto = await createEmployee(ctx);
    // Fixture: levels set directly (promotion itself is covered in promotion tests).
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'semi_autonomous' where public_id = ${semi.id}`;
    await sqlOf(
      ctx,
    )`update ai_employees set autonomy_level = 'autonomous' where public_id = ${auto.id}`;

    const report = await artifactOfRun(ctx, await completeRun(ctx, semi.id));
    assert.equal(report.approvalStatus, "approved");
    assert.equal(report.reviewedBy, "system");
    assert.equal(report.reviewer, null);
    const patch = await artifactOfRun(
      ctx,
      await completeRun(ctx, semi.id, {
        artifact: { kind: "code_patch", title: "Fix", payload: "diff" },
      }),
    );
    assert.equal(patch.approvalStatus, "pending");
    const email = await artifactOfRun(
      ctx,
      await completeRun(ctx, auto.id, {
        artifact: { kind: "email_template", title: "Mail", payload: "Hello" },
      }),
    );
    assert.equal(email.approvalStatus, "approved");
    assert.equal(email.reviewedBy, "system");
    // A post-filter veto is never auto-approved.
    const vetoed = await artifactOfRun(
      ctx,
      await completeRun(ctx, auto.id, { post_filter: { passed: false, reason: "off-brand" } }),
    );
    assert.equal(vetoed.approvalStatus, "auto_rejected");
    await ctx.t.app.jobs.runUntilIdle();
    assert.deepEqual(
      (await deliveryJobs(ctx)).map((j) => j.payload.artifactId).sort(),
      [report.id, email.id].sort(),
    );
    assert.ok(logged(ctx.t.log, "artifact approved").some((e) => e.reviewer === "system"));
  }));

Deno.test("review: aiEmployees and pendingArtifacts issue a constant number of statements", () =>
  withWorkforce(async (ctx) => {
    const EMPLOYEES = `{ aiEmployees { id name monthSpendUsd memories { key value }
      runs { totalCount nodes { id status artifacts { id employee { id } } employee { id } } }
      approvalRate { weekStart approved rejected autoRejected }
      promotionCriteria { approvalRate weeksActive recentRejections promotable missing } } }`;
    const PENDING =
      `{ pendingArtifacts { id title employee { id name } run { id status employee { id } } reviewer { id } } }`;
    const statements = async (query: string) => {
      await asAdmin(ctx, query);
      return logged(ctx.t.log, "request").at(-1)!.statements as number;
    };
    const addEmployeeWithHistory = async () => {
      const e = await createEmployee(ctx);
      await completeRun(ctx, e.id);
      await completeRun(ctx, e.id, { memory: { other: [1, 2] } });
    };
    await addEmployeeWithHistory();
    await asAdmin(ctx, `{ aiEmployees { id } }`); // warm up (user row)
    const smallEmployees = await statements(EMPLOYEES);
    const smallPending = await statements(PENDING);
    for (let i = 0; i < 4; i++) await addEmployeeWithHistory();
    const large = await asAdmin(ctx, EMPLOYEES);
    assert.equal(large.aiEmployees.length, 5);
    assert.equal(large.aiEmployees[4].runs.nodes.length, 2);
    assert.equal(large.aiEmployees[4].runs.totalCount, 2);
    assert.equal((await asAdmin(ctx, PENDING)).pendingArtifacts.length, 10);
    assert.equal(await statements(EMPLOYEES), smallEmployees);
    assert.equal(await statements(PENDING), smallPending);
    assert.ok(smallEmployees <= 12, `aiEmployees used ${smallEmployees} statements`);
  }));

Deno.test("review: an employee's kept decision counts follow approvals, rejections, undos and the post-filter", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const artifacts = [];
    for (let i = 0; i < 4; i++) {
      const runId = await completeRun(ctx, employee.id, {
        artifact: { kind: "draft_post", title: `Post ${i}`, payload: `text ${i}` },
      });
      artifacts.push(await artifactOfRun(ctx, runId));
    }
    await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Filtered", payload: "x" },
      post_filter: { passed: false, reason: "unsupported figures" },
    });
    const UNDO = `mutation($id: String!) {
      undoAiArtifactApproval(artifactId: $id) { errors { code message field } } }`;
    const kept = async () =>
      (await sqlOf(ctx)<{ approved: number; rejected: number; autoRejected: number }[]>`
        select approved_count as approved, rejected_count as rejected,
          auto_rejected_count as "autoRejected"
        from ai_employees where public_id = ${employee.id}`)[0];
    const counted = async () =>
      (await sqlOf(ctx)<{ approved: number; rejected: number; autoRejected: number }[]>`
        select
          count(*) filter (where approval_status = 'approved' and not auto_approved)::int
            as approved,
          count(*) filter (where approval_status = 'rejected')::int as rejected,
          count(*) filter (where approval_status = 'auto_rejected')::int as "autoRejected"
        from ai_artifacts a join ai_employees e on e.id = a.employee_id
        where e.public_id = ${employee.id}`)[0];
    assert.deepEqual(await kept(), { approved: 0, rejected: 0, autoRejected: 1 });

    for (
      const [query, vars] of [
        [APPROVE, { id: artifacts[0].id }],
        [APPROVE, { id: artifacts[0].id }], // refused: no longer pending
        [REJECT, { id: artifacts[1].id, reason: "off topic for this week" }],
        [APPROVE, { id: artifacts[2].id }],
        [UNDO, { id: artifacts[2].id }],
        [UNDO, { id: artifacts[2].id }], // refused: pending again
        [APPROVE, { id: artifacts[2].id, edit: "edited" }],
      ] as const
    ) {
      const answer = Object.values(await asAdmin(ctx, query, vars))[0] as { errors: unknown[] };
      if (query === REJECT) assert.deepEqual(answer.errors, []);
      assert.deepEqual(await kept(), await counted(), `${query.slice(0, 30)} ${vars.id}`);
    }
    assert.deepEqual(await kept(), { approved: 2, rejected: 1, autoRejected: 1 });
  }));

Deno.test("recent rejections are exact at the window's edge; a month's spend counts each cost once", () =>
  withWorkforce(async (ctx) => {
    const employee = await createEmployee(ctx);
    const decide = async (at: string, costUsd: number) => {
      ctx.clock.set(at);
      const runId = await completeRun(ctx, employee.id, {
        usage: { input_tokens: 1, output_tokens: 1, cost_usd: costUsd, num_turns: 1 },
      });
      const artifact = await artifactOfRun(ctx, runId);
      const rejected = await asAdmin(ctx, REJECT, { id: artifact.id, reason: "Not what we need." });
      assert.deepEqual(rejected.rejectAiArtifact.errors, []);
      return runId;
    };
    await decide("2026-02-20T10:00:00Z", 0.5);
    await decide("2026-03-02T11:00:00Z", 0.0123);
    const again = await decide("2026-03-02T13:00:00Z", 0.0123);
    await decide("2026-03-05T09:00:00Z", 0.0123);
    // The runner's result delivered twice changes nothing.
    const res = await postResult(
      ctx,
      resultBody(again, {
        usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0.0123, num_turns: 1 },
      }),
    );
    await res.body?.cancel();
    const figures = async () =>
      (await asAdmin(
        ctx,
        `query($id: String!) { aiEmployee(id: $id) {
          monthSpendUsd promotionCriteria { recentRejections } } }`,
        { id: employee.id },
      )).aiEmployee;
    // 14 days before: 2026-03-02T12:00Z, between the two rejections of that day.
    ctx.clock.set("2026-03-16T12:00:00Z");
    assert.deepEqual(await figures(), {
      monthSpendUsd: 0.0369,
      promotionCriteria: { recentRejections: 2 },
    });
    ctx.clock.set("2026-03-16T13:00:00Z");
    assert.equal((await figures()).promotionCriteria.recentRejections, 1);
    ctx.clock.set("2026-04-01T00:00:00Z");
    assert.deepEqual(await figures(), {
      monthSpendUsd: 0,
      promotionCriteria: { recentRejections: 0 },
    });
  }));
