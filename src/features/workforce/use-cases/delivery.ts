/**
 * Use cases of delivery of approved artifacts (spec 3.3): what the job
 * `ai_workforce.deliver_artifact` `{artifactId}` does (the workforce's `artifact_approved`
 * subscriber enqueues it), and the manual retry of a failed delivery.
 *
 * The job is a no-op once `delivered_at` is set. Otherwise it runs the kind's steps in order
 * (delivery/rules.ts `ROUTES`), skipping steps an earlier attempt recorded in `delivery_metadata`, and ends
 * `delivered` or `failed` (error in `delivery_metadata.error`, reported to the error tracker).
 * A failure is final until an admin retries: the job itself does not throw for it.
 *
 * Before review, the job `ai_workforce.check_patch` `{artifactId}` records whether a pending code
 * patch applies at its base commit, reading GitHub as delivery would and writing nothing there.
 */
import type { Config } from "../../../config.ts";
import type { Clock } from "../../../platform/clock.ts";
import type { Database } from "../../../platform/db.ts";
import type { ErrorTracker } from "../../../platform/errors.ts";
import type { Logger } from "../../../platform/log.ts";
import { type IdempotencyInput, retrySafe } from "../../../platform/idempotency.ts";
import type { JobQueue } from "../../feature.ts";
import { deliveryJob } from "../jobs.ts";
import { notFound, refuse, type WorkforceError } from "../rules.ts";
import type { ArtifactRow } from "../store.ts";
import * as store from "../store.ts";
import { type Adapters, createAdapters, forgeOf } from "../delivery/adapters.ts";
import type { Forge } from "../delivery/github.ts";
import { applyAtBase } from "../delivery/patch.ts";
import {
  type DeliveryItem,
  NOT_CONFIGURED,
  parseImapUrl,
  patchDiff,
  redact,
  routeFor,
  STEP_KEYS,
} from "../delivery/rules.ts";
import {
  markDelivered,
  markDeliveryFailed,
  type PatchCheck,
  recordPatchCheck,
  reopenFailedDelivery,
  saveDeliveryProgress,
  startDelivery,
} from "../delivery/store.ts";
import { type Actor, findArtifact, problemOf } from "./shared.ts";
import type { ArtifactPayload } from "./review.ts";

export type DeliveryOutcome = "delivered" | "failed" | "skipped";

/** What delivery is built from; the adapters and the forge come from the configuration when absent. */
export interface DeliverySettings {
  config: Config;
  db: Pick<Database, "sql">;
  clock: Clock;
  log: Logger;
  tracker: ErrorTracker;
  fetch: typeof fetch;
  jobs: JobQueue;
  /** Where artifacts go; built from the configuration when absent. */
  adapters?: Adapters;
  /** The code forge the patch check reads; built from the configuration when absent. */
  forge?: Forge;
}

/** What the delivery use cases need, built once per feature by {@link deliveryDeps}. */
export interface DeliveryDeps {
  db: Pick<Database, "sql">;
  clock: Clock;
  log: Logger;
  tracker: ErrorTracker;
  jobs: JobQueue;
  forge: Forge;
  destinations: Adapters;
  /** Values that must never reach a log line, the metadata or the error tracker. */
  secrets: string[];
  /** How long an admin's approval waits before its delivery starts (the undo window). */
  undoWindowMs: number;
}

export function deliveryDeps(settings: DeliverySettings): DeliveryDeps {
  const forge = settings.forge ?? forgeOf(settings.config, settings.fetch);
  return {
    db: settings.db,
    clock: settings.clock,
    log: settings.log.child({ component: "delivery" }),
    tracker: settings.tracker,
    jobs: settings.jobs,
    forge,
    destinations: settings.adapters ?? createAdapters(settings.config, settings.fetch, forge),
    secrets: secretsOf(settings.config),
    undoWindowMs: settings.config.approvalUndoSeconds * 1000,
  };
}

/**
 * Queues an approved artifact's delivery once per approval, to start when the undo window after
 * an admin's approval ends (an auto-approval has no one to undo it and starts at once). An
 * approval undone before this runs queues nothing.
 */
export async function scheduleDelivery(
  deps: DeliveryDeps,
  input: { artifactId: string },
): Promise<void> {
  const artifact = await findArtifact(deps, input.artifactId);
  if (!artifact || artifact.approvalStatus !== "approved" || artifact.deliveredAt) return;
  const approvedAt = artifact.reviewedAt ?? deps.clock.now();
  const runAt = artifact.autoApproved
    ? undefined
    : new Date(approvedAt.getTime() + deps.undoWindowMs);
  const payload = { artifactId: artifact.publicId, approvedAt: approvedAt.toISOString() };
  await deps.jobs.enqueue(deps.db.sql, deliveryJob, payload, {
    key: `deliver:${artifact.publicId}@${payload.approvedAt}`,
    runAt,
  });
}

/**
 * The `ai_workforce.deliver_artifact` job: delivers one artifact; every outcome is recorded on
 * the artifact, none is thrown.
 */
export async function deliverArtifact(
  deps: DeliveryDeps,
  _actor: Actor,
  input: { artifactId: string; approvedAt?: string },
): Promise<DeliveryOutcome> {
  const { artifactId } = input;
  const { log, tracker, secrets, destinations } = deps;
  const sql = deps.db.sql;
  const artifact = await findArtifact(deps, artifactId);
  if (!artifact) {
    log.warn("delivery skipped: no such artifact", { artifact_id: artifactId });
    return "skipped";
  }
  if (artifact.deliveredAt) {
    log.info("delivery skipped: already delivered", { artifact_id: artifactId });
    return "skipped";
  }
  if (artifact.approvalStatus !== "approved") {
    log.warn("delivery skipped: artifact is not approved", {
      artifact_id: artifactId,
      approval_status: artifact.approvalStatus,
    });
    return "skipped";
  }
  // Once started, the approval can no longer be undone; one undone (or redone) first is not ours.
  if (!(await startDelivery(sql, artifact.id, input.approvedAt ?? null))) {
    log.info("delivery skipped: the approval was undone", { artifact_id: artifactId });
    return "skipped";
  }
  const [employee] = await store.employeesByIds(sql, [artifact.employeeId]);
  const item = itemOf(artifact, employee);
  const route = routeFor(artifact.kind);
  const metadata: Record<string, unknown> = {
    ...earlierSteps(artifact.deliveryMetadata),
    destination: route.name,
  };
  for (const step of route.steps) {
    const key = STEP_KEYS[step];
    if (metadata[key]) continue; // done by an earlier attempt
    try {
      metadata[key] = await destinations[step].deliver(item, metadata);
    } catch (err) {
      const error = redact(problemOf(err), secrets);
      await markDeliveryFailed(sql, artifact.id, { ...metadata, error, failedStep: step });
      const reported = new Error(error);
      reported.name = "DeliveryError";
      tracker.captureError(reported, { artifact_id: artifactId, kind: artifact.kind, step });
      log.error("delivery failed", { artifact_id: artifactId, kind: artifact.kind, step, error });
      return "failed";
    }
    if (route.steps.length > 1) await saveDeliveryProgress(sql, artifact.id, metadata);
  }
  await markDelivered(sql, artifact.id, metadata, deps.clock.now());
  log.info("artifact delivered", {
    artifact_id: artifactId,
    kind: artifact.kind,
    destination: route.name,
  });
  return "delivered";
}

/**
 * `retryAiArtifactDelivery`: a failed delivery is queued again (the job's idempotency key is
 * the same as the first delivery's, so a job still queued for it is not doubled).
 */
export async function retryDelivery(
  deps: DeliveryDeps,
  actor: Actor,
  input: { artifactId: string } & IdempotencyInput,
): Promise<ArtifactPayload> {
  const refused = (error: WorkforceError): ArtifactPayload => ({ artifact: null, errors: [error] });
  const retry = await retrySafe(deps, "retryAiArtifactDelivery", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  // A concurrent first request with the key may have queued the delivery under these checks.
  const outside = (error: WorkforceError) => retry.unlessAnswered(refused(error));
  const artifact = await findArtifact(deps, input.artifactId);
  if (!artifact) return { artifact: null, errors: notFound("AI artifact", "artifactId") };
  if (artifact.approvalStatus !== "approved") {
    return refused(refuse("not_allowed", "only approved artifacts are delivered", "artifactId"));
  }
  if (artifact.deliveredAt) {
    return await outside(
      refuse("already_delivered", "the artifact is already delivered", "artifactId"),
    );
  }
  if (artifact.deliveryStatus !== "failed") {
    return await outside(
      refuse(
        "not_allowed",
        "only a failed delivery can be retried (this one is queued)",
        "artifactId",
      ),
    );
  }
  const answer = await retry.transaction(async (tx): Promise<ArtifactPayload> => {
    if (!(await reopenFailedDelivery(tx, artifact.id))) {
      return refused(refuse("conflict", "the delivery changed meanwhile", "artifactId"));
    }
    await deps.jobs.enqueue(tx, deliveryJob, { artifactId: artifact.publicId }, {
      key: `deliver:${artifact.publicId}`,
    });
    return { artifact: await store.artifactByPublicId(tx, artifact.publicId), errors: [] };
  });
  if (answer.errors.length) return await retry.unlessAnswered(answer);
  deps.log.info("delivery retry queued", { artifact_id: artifact.publicId });
  return answer;
}

/**
 * The `ai_workforce.check_patch` job, the patch check of a code patch: what applying it at its
 * base commit (the default branch's head without one) gives, recorded on the artifact. An error
 * reading GitHub is thrown, so the job tries again, until the last attempt records it as
 * `not_checked`.
 */
export async function checkPatch(
  deps: DeliveryDeps,
  _actor: Actor,
  input: { artifactId: string; attempt: number; maxAttempts: number },
): Promise<PatchCheck | null> {
  const { artifactId, attempt, maxAttempts } = input;
  const { forge } = deps;
  const artifact = await findArtifact(deps, artifactId);
  if (!artifact || artifact.kind !== "code_patch") return null;
  let check: PatchCheck;
  const diff = patchDiff(artifact.payload);
  if ("refused" in diff) {
    check = { status: "does_not_apply", reason: diff.refused, commitSha: null };
  } else if (!forge.configured()) {
    check = { status: "not_checked", reason: NOT_CONFIGURED, commitSha: null };
  } else {
    try {
      const ref = artifact.baseSha ?? (await forge.base()).sha;
      const applied = await applyAtBase(forge, artifact.payload, ref);
      check = "refused" in applied
        ? { status: "does_not_apply", reason: applied.refused, commitSha: applied.baseSha }
        : { status: "applies", reason: null, commitSha: applied.baseSha };
    } catch (err) {
      const problem = redact(problemOf(err), deps.secrets);
      if (attempt < maxAttempts) throw new Error(problem);
      check = { status: "not_checked", reason: problem, commitSha: null };
    }
  }
  const recorded = await recordPatchCheck(
    deps.db.sql,
    artifact.id,
    artifact.payload,
    check,
    deps.clock.now(),
  );
  deps.log.info("patch checked", {
    artifact_id: artifactId,
    status: check.status,
    reason: check.reason,
    recorded,
  });
  return check;
}

function itemOf(
  artifact: ArtifactRow,
  employee: { publicId: string; name: string; role: string },
): DeliveryItem {
  return {
    artifactId: artifact.publicId,
    kind: artifact.kind,
    title: artifact.title,
    payload: artifact.payload,
    employee: { publicId: employee.publicId, name: employee.name, role: employee.role },
    reviewedBy: artifact.autoApproved ? "system" : "admin",
    reviewedAt: artifact.reviewedAt,
    edited: artifact.originalPayload !== null,
    baseSha: artifact.baseSha,
  };
}

/** Step results an earlier attempt recorded (the error of that attempt is dropped). */
function earlierSteps(metadata: unknown): Record<string, unknown> {
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.values(STEP_KEYS)) {
    const value = (metadata as Record<string, unknown>)[key];
    if (value) out[key] = value;
  }
  return out;
}

/** Values that must never reach a log line, the metadata or the error tracker. */
function secretsOf(config: Config): string[] {
  const out: string[] = [];
  if (config.githubToken) out.push(config.githubToken);
  if (config.sandboxImapUrl) {
    out.push(config.sandboxImapUrl);
    const pass = parseImapUrl(config.sandboxImapUrl).pass;
    if (pass) out.push(pass);
  }
  if (config.chatWebhookUrl) {
    out.push(config.chatWebhookUrl);
    const path = new URL(config.chatWebhookUrl).pathname;
    if (path.length > 1) out.push(path);
  }
  return out;
}
