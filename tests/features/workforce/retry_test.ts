/**
 * The admin's workforce mutations are safe to retry (docs/graphql.md, "Retrying mutations"): with
 * an `idempotencyKey`, approving, rejecting, undoing an approval, retrying a delivery and
 * cancelling a run happen once per key (one after the other, at once, twice in a batch) and a
 * retry answers the first answer; without a key, the same admin's repeated approval, rejection or
 * cancel answers the artifact or run with a flag. Both database modes.
 */
import assert from "node:assert/strict";
import { logged } from "../../support/app.ts";
import {
  artifactOfRun,
  deliveredArtifact,
  type DeliveryCtx,
  withDelivery,
} from "../../support/delivery.ts";
import { assertRepeatSafe, assertRetrySafe, type Round, rows } from "../../support/retries.ts";
import { completeRun, createEmployee, triggerRun } from "../../support/workforce.ts";

const ERRORS = `errors { code message field }`;
const ARTIFACT = `artifact { id approvalStatus payload reviewedAt rejectionReason deliveryStatus }`;
const APPROVE = `mutation A($id: String!, $edit: String, $key: String) {
  approveAiArtifact(artifactId: $id, editedPayload: $edit, idempotencyKey: $key) {
    ${ARTIFACT} alreadyApproved alreadyRejected ${ERRORS} } }`;
const REJECT = `mutation R($id: String!, $reason: String!, $key: String) {
  rejectAiArtifact(artifactId: $id, rejectionReason: $reason, idempotencyKey: $key) {
    ${ARTIFACT} alreadyApproved alreadyRejected ${ERRORS} } }`;
const UNDO = `mutation U($id: String!, $key: String) {
  undoAiArtifactApproval(artifactId: $id, idempotencyKey: $key) { ${ARTIFACT} ${ERRORS} } }`;
const RETRY_DELIVERY = `mutation D($id: String!, $key: String) {
  retryAiArtifactDelivery(artifactId: $id, idempotencyKey: $key) { ${ARTIFACT} ${ERRORS} } }`;
const CANCEL = `mutation C($id: String!, $key: String) {
  cancelAiRun(runId: $id, idempotencyKey: $key) {
    run { id status cancelRequestedAt errorMessage } alreadyCancelled ${ERRORS} } }`;

const ADMINS = ["admin-1", "admin-2"];
type Target = Round | "other" | "theirs";
const TARGETS: Target[] = ["seq", "par", "batch", "other", "theirs"];

/** A pending artifact per target (one employee; each run completed before the next). */
async function pendingArtifacts(ctx: DeliveryCtx): Promise<Record<Target, string>> {
  const employee = await createEmployee(ctx);
  const ids: Partial<Record<Target, string>> = {};
  for (const t of TARGETS) {
    ids[t] = (await artifactOfRun(ctx, await completeRun(ctx, employee.id))).id;
  }
  return ids as Record<Target, string>;
}

const approved = (ctx: DeliveryCtx) => rows(ctx, "ai_artifacts", "approval_status = 'approved'");
const rejected = (ctx: DeliveryCtx) => rows(ctx, "ai_artifacts", "approval_status = 'rejected'");

Deno.test("workforce retries: approveAiArtifact and rejectAiArtifact with a key review once", () =>
  withDelivery(async (ctx) => {
    const toApprove = await pendingArtifacts(ctx);
    const first = await assertRetrySafe(ctx, {
      mutation: "approveAiArtifact",
      query: APPROVE,
      vars: (round) => ({ id: toApprove[round], edit: "Edited." }),
      otherVars: { id: toApprove.other, edit: "Edited." },
      as: "admin-1",
      object: "artifact",
      count: () => approved(ctx),
      otherUser: "admin-2",
      otherUserVars: { id: toApprove.theirs, edit: "Edited." },
    });
    assert.equal(first.artifact.payload, "Edited.");
    assert.equal(first.alreadyApproved, false, "a replay is the first answer, flag and all");
    // One approval, one delivery queued per artifact (the event was published once).
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(await rows(ctx, "jobs", "name = 'ai_workforce.deliver_artifact'"), 4);

    const toReject = await pendingArtifacts(ctx);
    const reason = "Not what we asked for.";
    await assertRetrySafe(ctx, {
      mutation: "rejectAiArtifact",
      query: REJECT,
      vars: (round) => ({ id: toReject[round], reason }),
      otherVars: { id: toReject.other, reason },
      as: "admin-1",
      object: "artifact",
      count: () => rejected(ctx),
      otherUser: "admin-2",
      otherUserVars: { id: toReject.theirs, reason },
    });
    // The reason joined the employee's memory once per rejection, not per retry.
    const [memory] = await ctx.t.deps.db.sql<{ value: string[] }[]>`
      select value from ai_employee_memories m join ai_artifacts a on a.employee_id = m.employee_id
      where a.public_id = ${toReject.seq} and m.key = 'recent_rejections'`;
    assert.equal(memory.value.length, 4);
  }, { admins: ADMINS }));

Deno.test("workforce retries: the same admin's repeated review or cancel answers a flag, without a key", () =>
  withDelivery(async (ctx) => {
    const employee = await createEmployee(ctx);
    const fresh = async () => (await artifactOfRun(ctx, await completeRun(ctx, employee.id))).id;
    await assertRepeatSafe(ctx, {
      mutation: "approveAiArtifact",
      query: APPROVE,
      prepare: async () => ({ id: await fresh(), edit: "Shorter." }),
      as: "admin-1",
      object: "artifact",
      flag: "alreadyApproved",
      count: () => approved(ctx),
    });
    await assertRepeatSafe(ctx, {
      mutation: "rejectAiArtifact",
      query: REJECT,
      prepare: async () => ({ id: await fresh(), reason: "Too long to read." }),
      as: "admin-1",
      object: "artifact",
      flag: "alreadyRejected",
      count: () => rejected(ctx),
    });
    // Another decision than the one taken is still refused: another edit, another admin, the
    // other verdict.
    const id = await fresh();
    const done = (await ctx.data(APPROVE, { id, edit: "One." }, "admin-1")).approveAiArtifact;
    assert.deepEqual(done.errors, []);
    for (
      const [query, vars, as] of [
        [APPROVE, { id, edit: "Two." }, "admin-1"],
        [APPROVE, { id }, "admin-1"],
        [APPROVE, { id, edit: "One." }, "admin-2"],
        [REJECT, { id, reason: "Changed my mind." }, "admin-1"],
      ] as const
    ) {
      const [answer] = Object.values(await ctx.data(query, vars, as)) as {
        errors: { code: string }[];
      }[];
      assert.deepEqual(answer.errors.map((e) => e.code), ["not_allowed"], JSON.stringify(vars));
    }

    // A queued run cancelled twice: failed once, the repeat flagged; the runner is never asked.
    await assertRepeatSafe(ctx, {
      mutation: "cancelAiRun",
      query: CANCEL,
      prepare: async () => ({
        id: (await triggerRun(ctx, (await createEmployee(ctx)).id)).run!.id,
      }),
      as: "admin-1",
      object: "run",
      flag: "alreadyCancelled",
      count: () => rows(ctx, "ai_runs", "status = 'failed' and cancel_requested_at is not null"),
    });
    assert.deepEqual(ctx.runner.cancels(), []);
  }, { admins: ADMINS }));

Deno.test("workforce retries: cancelAiRun with a key asks the runner once", () =>
  withDelivery(async (ctx) => {
    // A running run per target, each of its own employee (one run in flight per employee).
    const runs: Partial<Record<Target, string>> = {};
    for (const t of TARGETS) {
      runs[t] = (await triggerRun(ctx, (await createEmployee(ctx)).id)).run!.id;
    }
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(await rows(ctx, "ai_runs", "status = 'running'"), TARGETS.length);
    const first = await assertRetrySafe(ctx, {
      mutation: "cancelAiRun",
      query: CANCEL,
      vars: (round) => ({ id: runs[round] }),
      otherVars: { id: runs.other },
      as: "admin-1",
      object: "run",
      count: () => Promise.resolve(ctx.runner.cancels().length),
      otherUser: "admin-2",
      otherUserVars: { id: runs.theirs },
    });
    assert.equal(first.run.status, "running");
    assert.ok(first.run.cancelRequestedAt);
    assert.equal(first.alreadyCancelled, false);
    // Without the key a repeat asks the runner again, and says the cancel was asked for.
    const again = (await ctx.data(CANCEL, { id: runs.seq }, "admin-1")).cancelAiRun;
    assert.deepEqual([again.errors, again.alreadyCancelled], [[], true]);
    assert.equal(ctx.runner.cancels().length, 5);
  }, { admins: ADMINS }));

Deno.test("workforce retries: undoAiArtifactApproval and retryAiArtifactDelivery with a key act once", () =>
  withDelivery(async (ctx) => {
    const ids = await pendingArtifacts(ctx);
    for (const t of TARGETS) {
      const done = (await ctx.data(APPROVE, { id: ids[t] }, t === "theirs" ? "admin-2" : "admin-1"))
        .approveAiArtifact;
      assert.deepEqual(done.errors, []);
    }
    const undone = await assertRetrySafe(ctx, {
      mutation: "undoAiArtifactApproval",
      query: UNDO,
      vars: (round) => ({ id: ids[round] }),
      otherVars: { id: ids.other },
      as: "admin-1",
      object: "artifact",
      count: () => rows(ctx, "ai_artifacts", "approval_status = 'pending'"),
      otherUser: "admin-2",
      otherUserVars: { id: ids.theirs },
    });
    assert.equal(undone.artifact.approvalStatus, "pending");
    // Back on the board once per undo (the log line and the board's message go together).
    assert.equal(logged(ctx.t.log, "artifact approval undone").length, 4);
    // Without the key the repeat is refused, as before.
    const plain = (await ctx.data(UNDO, { id: ids.other }, "admin-1")).undoAiArtifactApproval;
    assert.deepEqual(plain.errors, []);
    const repeat = (await ctx.data(UNDO, { id: ids.other }, "admin-1")).undoAiArtifactApproval;
    assert.deepEqual(repeat.errors.map((e: { code: string }) => e.code), ["not_undoable"]);

    // Failed deliveries, retried: one delivery job queued per artifact, however often sent.
    ctx.github.failWith = { pattern: /^POST .*\/pulls$/, status: 502 };
    const failed: Partial<Record<Target, string>> = {};
    for (const t of TARGETS) {
      const a = await deliveredArtifact(ctx, { kind: "draft_post", payload: `Post ${t}.` });
      assert.equal(a.deliveryStatus, "failed");
      failed[t] = a.id;
    }
    ctx.github.failWith = null;
    const queued = () => rows(ctx, "jobs", "name = 'ai_workforce.deliver_artifact'");
    assert.equal(await queued(), 0);
    const retried = await assertRetrySafe(ctx, {
      mutation: "retryAiArtifactDelivery",
      query: RETRY_DELIVERY,
      vars: (round) => ({ id: failed[round] }),
      otherVars: { id: failed.other },
      as: "admin-1",
      object: "artifact",
      count: queued,
      otherUser: "admin-2",
      otherUserVars: { id: failed.theirs },
    });
    assert.equal(retried.artifact.deliveryStatus, null, "queued again");
    assert.equal(await ctx.t.app.jobs.runUntilIdle(), 4, "one delivery per retried artifact");
  }, { admins: ADMINS }));
