/**
 * Delivery test harness: the workforce harness (service, admin token, fake runner, fake chat on
 * the allowed host) plus the fake GitHub, and helpers that take an artifact of a given kind from a
 * run to an admin approval and through the delivery job.
 */
import type { ManualClock } from "../../src/platform/clock.ts";
import { type FakeFile, type FakeGitHub, startFakeGitHub } from "./github.ts";
import {
  asAdmin,
  completeRun,
  createEmployee,
  setupWorkforce,
  type WorkforceCtx,
} from "./workforce.ts";

export interface DeliveryCtx extends WorkforceCtx {
  github: FakeGitHub;
}

export async function withDelivery(
  fn: (ctx: DeliveryCtx) => Promise<void>,
  options: {
    env?: Record<string, string>;
    files?: Record<string, FakeFile>;
    admins?: string[];
  } = {},
) {
  const github = await startFakeGitHub(options.files);
  let ctx: WorkforceCtx | undefined;
  try {
    ctx = await setupWorkforce({
      env: { ...github.env, ...options.env },
      admins: options.admins,
    });
    await fn(Object.assign(ctx, { github }));
  } finally {
    try {
      await ctx?.close();
    } finally {
      await github.close();
    }
  }
}

export const DELIVERY_FIELDS =
  `id kind title approvalStatus payload deliveredAt deliveryStatus deliveryMetadata`;

export interface DeliveredArtifact {
  id: string;
  kind: string;
  title: string;
  approvalStatus: string;
  payload: string;
  deliveredAt: string | null;
  deliveryStatus: string | null;
  /** `deliveryMetadata` (a JSON value). */
  // deno-lint-ignore no-explicit-any
  metadata: any;
  runId: string;
}

export async function artifactOfRun(ctx: WorkforceCtx, runId: string): Promise<DeliveredArtifact> {
  const data = await asAdmin(
    ctx,
    `query($id: String!) { aiRun(id: $id) { artifacts { ${DELIVERY_FIELDS} } } }`,
    { id: runId },
  );
  const a = data.aiRun.artifacts[0];
  return {
    ...a,
    metadata: a.deliveryMetadata,
    runId,
  };
}

/** What a run result's artifact may carry (DESIGN 3.4). */
export interface ResultArtifact {
  kind: string;
  title?: string;
  payload: string;
  metadata?: { base_sha?: string; files?: string[]; unsupported_figures?: string[] };
}

/** A pending artifact of `kind` (a new employee with `role`, one completed run). */
export async function pendingArtifact(
  ctx: WorkforceCtx,
  artifact: ResultArtifact,
  role = `writer_${crypto.randomUUID().slice(0, 8).replaceAll("-", "")}`,
): Promise<DeliveredArtifact> {
  const employee = await createEmployee(ctx, { name: "Writer Bot", role });
  const runId = await completeRun(ctx, employee.id, {
    artifact: { title: `A ${artifact.kind}`, ...artifact },
  });
  return await artifactOfRun(ctx, runId);
}

/** Approves the artifact as the admin, then runs the event subscriber and the delivery job. */
export async function approveAndDeliver(
  ctx: WorkforceCtx,
  artifact: DeliveredArtifact,
): Promise<DeliveredArtifact> {
  const data = await asAdmin(
    ctx,
    `mutation($id: String!) { approveAiArtifact(artifactId: $id) { errors { code message field } } }`,
    { id: artifact.id },
  );
  if (data.approveAiArtifact.errors.length) {
    throw new Error(JSON.stringify(data.approveAiArtifact.errors[0]));
  }
  await runAfterUndoWindow(ctx);
  return await artifactOfRun(ctx, artifact.runId);
}

/**
 * Runs the jobs, lets the undo window of the approvals just made pass on the test clock, and runs
 * the jobs again (the deliveries): how many ran.
 */
export async function runAfterUndoWindow(ctx: Pick<WorkforceCtx, "t">): Promise<number> {
  const ran = await ctx.t.app.jobs.runUntilIdle();
  (ctx.t.clock as ManualClock).advance(ctx.t.deps.config.approvalUndoSeconds * 1000);
  return ran + await ctx.t.app.jobs.runUntilIdle();
}

export async function deliveredArtifact(
  ctx: WorkforceCtx,
  artifact: ResultArtifact,
  role?: string,
): Promise<DeliveredArtifact> {
  return await approveAndDeliver(ctx, await pendingArtifact(ctx, artifact, role));
}

export const RETRY = `mutation($id: String!) {
  retryAiArtifactDelivery(artifactId: $id) { artifact { ${DELIVERY_FIELDS} } errors { code message field } } }`;
