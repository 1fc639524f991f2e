/**
 * The undo window of an approval (docs/delivery.md): an admin's approval waits
 * APPROVAL_UNDO_SECONDS before its delivery starts; undone meanwhile, nothing is delivered; once
 * the delivery has started, the undo is refused.
 */
import assert from "node:assert/strict";
import type { ManualClock } from "../../../../src/platform/clock.ts";
import { asAdmin } from "../../../support/workforce.ts";
import {
  artifactOfRun,
  type DeliveryCtx,
  pendingArtifact,
  runAfterUndoWindow,
  withDelivery,
} from "../../../support/delivery.ts";

const APPROVE = `mutation($id: String!, $edited: String) {
  approveAiArtifact(artifactId: $id, editedPayload: $edited) { errors { code } } }`;
const UNDO = `mutation($id: String!) { undoAiArtifactApproval(artifactId: $id) {
  artifact { id approvalStatus payload deliveryStatus } errors { code message field } } }`;

async function approve(ctx: DeliveryCtx, id: string, edited?: string) {
  const data = await asAdmin(ctx, APPROVE, { id, edited });
  assert.deepEqual(data.approveAiArtifact.errors, []);
}

const undo = async (ctx: DeliveryCtx, id: string) =>
  (await asAdmin(ctx, UNDO, { id })).undoAiArtifactApproval;

Deno.test("an approval undone within the window is never delivered; approved again, it is", () =>
  withDelivery(async (ctx) => {
    const a = await pendingArtifact(ctx, { kind: "slack_message", payload: "Hello team." });
    await approve(ctx, a.id, "Hello, team.");
    // The subscriber queues the delivery; it waits for the window.
    await ctx.t.app.jobs.runUntilIdle();
    assert.equal(ctx.chat.requests.length, 0, "nothing delivered within the window");

    const undone = await undo(ctx, a.id);
    assert.deepEqual(undone.errors, []);
    assert.equal(undone.artifact.approvalStatus, "pending");
    assert.equal(undone.artifact.payload, "Hello team.", "the edit is dropped");

    (ctx.t.clock as ManualClock).advance(ctx.t.deps.config.approvalUndoSeconds * 1000);
    await ctx.t.app.jobs.runUntilIdle();
    const after = await artifactOfRun(ctx, a.runId);
    assert.equal(after.approvalStatus, "pending");
    assert.equal(after.deliveredAt, null);
    assert.equal(ctx.chat.requests.length, 0, "the undone approval's job delivered nothing");

    // Approved again: the new approval waits its own window, then delivers once.
    await approve(ctx, a.id);
    await runAfterUndoWindow(ctx);
    const delivered = await artifactOfRun(ctx, a.runId);
    assert.equal(delivered.deliveryStatus, "delivered");
    assert.equal(ctx.chat.requests.length, 1);
  }));

Deno.test("once the delivery has started, or for an artifact not approved, the undo is refused", () =>
  withDelivery(async (ctx) => {
    const a = await pendingArtifact(ctx, { kind: "slack_message", payload: "Ship it." });
    const pending = await undo(ctx, a.id);
    assert.deepEqual(pending.errors, [{
      code: "not_undoable",
      message: "only an approved artifact's approval can be undone (this one is pending)",
      field: "artifactId",
    }]);

    await approve(ctx, a.id);
    await runAfterUndoWindow(ctx);
    assert.equal((await artifactOfRun(ctx, a.runId)).deliveryStatus, "delivered");
    const late = await undo(ctx, a.id);
    assert.equal(late.artifact, null);
    assert.deepEqual(late.errors, [{
      code: "not_undoable",
      message: "the delivery has started: the approval can no longer be undone",
      field: "artifactId",
    }]);
    assert.equal((await artifactOfRun(ctx, a.runId)).approvalStatus, "approved");

    const unknown = await undo(ctx, "no-such-artifact");
    assert.deepEqual(unknown.errors.map((e: { code: string }) => e.code), ["not_found"]);
  }));

const READ = `query($id: String!) { aiArtifact(id: $id) {
  id approvalStatus reviewedAt undoableUntil deliveryStatus } }`;

Deno.test("undoableUntil: the end of the window after an admin's approval, null once delivering", () =>
  withDelivery(async (ctx) => {
    const a = await pendingArtifact(ctx, { kind: "slack_message", payload: "Window." });
    const pending = (await asAdmin(ctx, READ, { id: a.id })).aiArtifact;
    assert.equal(pending.approvalStatus, "pending");
    assert.equal(pending.undoableUntil, null);

    await approve(ctx, a.id);
    const approved = (await asAdmin(ctx, READ, { id: a.id })).aiArtifact;
    const windowMs = ctx.t.deps.config.approvalUndoSeconds * 1000;
    assert.equal(
      Date.parse(approved.undoableUntil) - Date.parse(approved.reviewedAt),
      windowMs,
    );

    await runAfterUndoWindow(ctx);
    const delivered = (await asAdmin(ctx, READ, { id: a.id })).aiArtifact;
    assert.equal(delivered.deliveryStatus, "delivered");
    assert.equal(delivered.undoableUntil, null);

    for (const id of ["no-such-artifact", "x".repeat(500)]) {
      assert.equal((await asAdmin(ctx, READ, { id })).aiArtifact, null, `aiArtifact(${id.length})`);
    }
  }));
