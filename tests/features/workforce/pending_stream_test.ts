/**
 * `pendingArtifactAdded` over `/cable` (graphql-ws and ActionCable, through the served app): each
 * artifact stored pending reaches admin subscribers after commit, on every instance; non-admins
 * are refused and get nothing.
 */
import assert from "node:assert/strict";
import { graphqlChannel, rawCable, serveApp, stream, wsClient } from "../../support/cable.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { createTestDatabase, notClosing } from "../../support/db.ts";
import { sharedKv } from "../../support/kv.ts";
import { waitFor } from "../../support/wait.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  postResult,
  resultBody,
  setupWorkforce,
  triggerRun,
  WORKFORCE_SECRET,
} from "../../support/workforce.ts";

const PENDING = `subscription PendingArtifacts { pendingArtifactAdded {
  id kind title approvalStatus employee { id } run { id } } }`;

Deno.test("pendingArtifactAdded (graphql-ws): admins get each pending artifact; non-admins are FORBIDDEN", async () => {
  const ctx = await setupWorkforce();
  const served = serveApp(ctx.t);
  const admin = wsClient(served.wsUrl, { headerToken: ctx.admin });
  const user = wsClient(served.wsUrl, { headerToken: ctx.user });
  try {
    const refused = stream(user.client, PENDING);
    await refused.done;
    assert.equal(refused.results[0]?.errors?.[0]?.extensions?.code, "FORBIDDEN");

    const sub = stream(admin.client, PENDING);
    await waitFor(() => ctx.t.app.cable.stats().subscriptions === 1);
    const employee = await createEmployee(ctx);
    const runId = await completeRun(ctx, employee.id, {
      artifact: { kind: "draft_post", title: "Launch post", payload: "We launched." },
    });
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "the pending one" });
    const first = sub.results[0].data!.pendingArtifactAdded as Record<string, unknown>;
    const stored = (await asAdmin(ctx, `{ pendingArtifacts { id } }`)).pendingArtifacts;
    assert.deepEqual(first, {
      id: stored[0].id,
      kind: "draft_post",
      title: "Launch post",
      approvalStatus: "pending",
      employee: { id: employee.id },
      run: { id: runId },
    });

    // Blocked by the post-filter: not pending, not sent. The next pending one is, and comes
    // after it, so the blocked one would have arrived first.
    await completeRun(ctx, employee.id, {
      post_filter: { passed: false, reason: "mentions a customer" },
    });
    await completeRun(ctx, employee.id, {
      artifact: { kind: "report", title: "Weekly", payload: "All good." },
    });
    await waitFor(() => sub.results.length === 2, { timeoutMs: 5000, what: "the second one" });
    assert.deepEqual(
      sub.results.map((r) => (r.data!.pendingArtifactAdded as { title: string }).title),
      ["Launch post", "Weekly"],
    );
    assert.equal(sub.results.every((r) => r.errors === undefined), true);
  } finally {
    await admin.dispose();
    await user.dispose();
    await served.close();
    await ctx.close();
  }
});

Deno.test("pendingArtifactAdded: an artifact whose approval is undone is sent again", async () => {
  const ctx = await setupWorkforce();
  const served = serveApp(ctx.t);
  const admin = wsClient(served.wsUrl, { headerToken: ctx.admin });
  try {
    const sub = stream(admin.client, PENDING);
    await waitFor(() => ctx.t.app.cable.stats().subscriptions === 1);
    const employee = await createEmployee(ctx);
    await completeRun(ctx, employee.id);
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "the pending one" });
    const { id } = sub.results[0].data!.pendingArtifactAdded as { id: string };
    const approved = await asAdmin(
      ctx,
      `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code } } }`,
      { id },
    );
    assert.deepEqual(approved.approveAiArtifact.errors, []);
    const undone = await asAdmin(
      ctx,
      `mutation($id: String!) { undoAiArtifactApproval(artifactId: $id) { errors { code } } }`,
      { id },
    );
    assert.deepEqual(undone.undoAiArtifactApproval.errors, []);
    await waitFor(() => sub.results.length === 2, { timeoutMs: 5000, what: "the undone one" });
    assert.deepEqual(
      { ...sub.results[1].data!.pendingArtifactAdded as Record<string, unknown> },
      { ...sub.results[0].data!.pendingArtifactAdded as Record<string, unknown> },
    );
  } finally {
    await admin.dispose();
    await served.close();
    await ctx.close();
  }
});

Deno.test("pendingArtifactAdded (ActionCable): an update with more: true", async () => {
  const ctx = await setupWorkforce();
  const served = serveApp(ctx.t);
  const cable = rawCable(served.wsUrl, { headerToken: ctx.admin });
  try {
    await cable.opened;
    const id = graphqlChannel();
    cable.subscribe(id);
    await cable.next((f) => f.identifier === id && f.type === "confirm_subscription");
    cable.execute(id, PENDING, {}, "PendingArtifacts");
    await waitFor(() => ctx.t.app.cable.stats().subscriptions === 1);
    const employee = await createEmployee(ctx);
    await completeRun(ctx, employee.id);
    const update = await cable.next((f) => f.identifier === id && f.message);
    assert.equal(update.message.more, true);
    assert.equal(update.message.result.data.pendingArtifactAdded.kind, "report");
    assert.equal(update.message.result.data.pendingArtifactAdded.approvalStatus, "pending");
  } finally {
    cable.close();
    await cable.closed;
    await served.close();
    await ctx.close();
  }
});

Deno.test("pendingArtifactAdded: a result concluded on instance B reaches a subscriber on A", async () => {
  const db = await createTestDatabase();
  const kv = sharedKv();
  const ctx = await setupWorkforce({ db, kv: () => kv.a });
  const served = serveApp(ctx.t);
  const admin = wsClient(served.wsUrl, { headerToken: ctx.admin });
  let b: TestApp | undefined;
  try {
    b = await createTestApp({
      clock: ctx.clock,
      env: { ...ctx.idp.env, WORKFORCE_WEBHOOK_SECRET: WORKFORCE_SECRET },
      db: notClosing(db),
      kv: kv.b,
    });
    const sub = stream(admin.client, PENDING);
    await waitFor(() => ctx.t.app.cable.stats().subscriptions === 1);
    const employee = await createEmployee(ctx);
    const { run } = await triggerRun(ctx, employee.id);
    await ctx.t.app.jobs.runUntilIdle(); // A dispatches to the runner
    const res = await postResult({ t: b }, resultBody(run!.id));
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(sub.results.length, 0, "nothing before the event's job runs");
    await b.app.jobs.runUntilIdle(); // B's worker publishes
    await waitFor(() => sub.results.length === 1, { timeoutMs: 5000, what: "B's artifact on A" });
    const got = sub.results[0].data!.pendingArtifactAdded as { run: { id: string } };
    assert.equal(got.run.id, run!.id);
  } finally {
    await admin.dispose();
    await served.close();
    await b?.close();
    await ctx.close();
  }
});
