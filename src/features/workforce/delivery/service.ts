/**
 * Delivery of approved artifacts (spec 3.3): what the job
 * `ai_workforce.deliver_artifact` `{artifactId}` does (the workforce's `artifact_approved`
 * subscriber enqueues it), and the manual retry of a failed delivery.
 *
 * The job is a no-op once `delivered_at` is set. Otherwise it runs the kind's steps in order
 * (rules.ts `ROUTES`), skipping steps an earlier attempt recorded in `delivery_metadata`, and ends
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
import { type UserError, userError } from "../../../platform/user-error.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import type { Logger } from "../../../platform/log.ts";
import type { JobQueue } from "../../feature.ts";
import { deliveryJob } from "../jobs.ts";
import { artifactByPublicId, type ArtifactRow, employeesByIds } from "../store.ts";
import { type Adapters, createAdapters, forgeOf } from "./adapters.ts";
import type { Forge } from "./github.ts";
import { applyAtBase } from "./patch.ts";
import {
  type DeliveryItem,
  parseImapUrl,
  patchDiff,
  redact,
  routeFor,
  STEP_KEYS,
} from "./rules.ts";
import {
  markDelivered,
  markDeliveryFailed,
  type PatchCheck,
  recordPatchCheck,
  reopenFailedDelivery,
  saveDeliveryProgress,
} from "./store.ts";

export type DeliveryOutcome = "delivered" | "failed" | "skipped";

export interface DeliveryDeps {
  config: Config;
  db: Database;
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

/** Why the patch check did not read GitHub when it is not configured. */
export const NOT_CONFIGURED =
  "GitHub is not configured (GITHUB_TOKEN, GITHUB_REPO): delivery checks it when it runs";

export type Delivery = ReturnType<typeof createDelivery>;

export function createDelivery(deps: DeliveryDeps) {
  const { db, jobs, clock, config, tracker } = deps;
  const sql = db.sql;
  const log = deps.log.child({ component: "delivery" });
  const forge = deps.forge ?? forgeOf(config, deps.fetch);
  const destinations = deps.adapters ?? createAdapters(config, deps.fetch, forge);
  const secrets = secretsOf(config);

  /** Delivers one artifact; every outcome is recorded on the artifact, none is thrown. */
  async function deliver(artifactId: string): Promise<DeliveryOutcome> {
    const artifact = looksLikePublicId(artifactId)
      ? await artifactByPublicId(sql, artifactId)
      : null;
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
    const [employee] = await employeesByIds(sql, [artifact.employeeId]);
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
        const error = redact(err instanceof Error ? err.message : String(err), secrets);
        await markDeliveryFailed(sql, artifact.id, { ...metadata, error, failedStep: step });
        const reported = new Error(error);
        reported.name = "DeliveryError";
        tracker.captureError(reported, { artifact_id: artifactId, kind: artifact.kind, step });
        log.error("delivery failed", { artifact_id: artifactId, kind: artifact.kind, step, error });
        return "failed";
      }
      if (route.steps.length > 1) await saveDeliveryProgress(sql, artifact.id, metadata);
    }
    await markDelivered(sql, artifact.id, metadata, clock.now());
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
  async function retry(
    artifact: ArtifactRow,
  ): Promise<{ artifact: ArtifactRow | null; errors: UserError[] }> {
    const refused = (code: string, message: string) => ({
      artifact: null,
      errors: [userError(code, message, "artifactId")],
    });
    if (artifact.approvalStatus !== "approved") {
      return refused("not_allowed", "only approved artifacts are delivered");
    }
    if (artifact.deliveredAt) {
      return refused("already_delivered", "the artifact is already delivered");
    }
    if (artifact.deliveryStatus !== "failed") {
      return refused(
        "not_allowed",
        "only a failed delivery can be retried (this one is queued)",
      );
    }
    const reopened = await sql.begin(async (tx) => {
      if (!(await reopenFailedDelivery(tx, artifact.id))) return false;
      await jobs.enqueue(tx, deliveryJob, { artifactId: artifact.publicId }, {
        key: `deliver:${artifact.publicId}`,
      });
      return true;
    });
    if (!reopened) return refused("conflict", "the delivery changed meanwhile");
    const current = (await artifactByPublicId(sql, artifact.publicId)) ?? artifact;
    log.info("delivery retry queued", { artifact_id: artifact.publicId });
    return { artifact: current, errors: [] };
  }

  /**
   * The patch check of a code patch: what applying it at its base commit (the default branch's
   * head without one) gives, recorded on the artifact. An error reading GitHub is thrown, so the
   * job tries again, until the last attempt records it as `not_checked`.
   */
  async function checkPatch(
    artifactId: string,
    attempt: number,
    maxAttempts: number,
  ): Promise<PatchCheck | null> {
    const artifact = looksLikePublicId(artifactId)
      ? await artifactByPublicId(sql, artifactId)
      : null;
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
        const problem = redact(err instanceof Error ? err.message : String(err), secrets);
        if (attempt < maxAttempts) throw new Error(problem);
        check = { status: "not_checked", reason: problem, commitSha: null };
      }
    }
    const recorded = await recordPatchCheck(
      sql,
      artifact.id,
      artifact.payload,
      check,
      clock.now(),
    );
    log.info("patch checked", {
      artifact_id: artifactId,
      status: check.status,
      reason: check.reason,
      recorded,
    });
    return check;
  }

  return { deliver, retry, checkPatch };
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
