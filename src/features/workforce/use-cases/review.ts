/**
 * Use cases of review (spec 3.2): `approveArtifact` and `rejectArtifact` by an admin, and the one
 * approval path that auto-approval shares.
 */
import type { Queryable } from "../../../platform/db.ts";
import { editedPatchError, protectedPatchError } from "../delivery/rules.ts";
import { PATCH_CHECK_ATTEMPTS, patchCheckJob } from "../jobs.ts";
import {
  appendRejection,
  editedPayloadError,
  measureEdit,
  notFound,
  refuse,
  rejectionReasonError,
  REVIEWED_MEANWHILE,
  reviewError,
  type WorkforceError,
} from "../rules.ts";
import * as store from "../store.ts";
import type { ArtifactRow, EmployeeRow } from "../store.ts";
import { type Actor, findArtifact, type WorkforceServiceDeps } from "./shared.ts";

export interface ArtifactPayload {
  artifact: ArtifactRow | null;
  errors: WorkforceError[];
}

const refused = (...errors: WorkforceError[]): ArtifactPayload => ({ artifact: null, errors });

/** Queues the patch check of a code patch's payload as stored, or as an approval edited it. */
export async function enqueuePatchCheck(
  deps: Pick<WorkforceServiceDeps, "jobs">,
  tx: Queryable,
  artifact: ArtifactRow,
  payload: "stored" | "edited",
): Promise<void> {
  await deps.jobs.enqueue(tx, patchCheckJob, { artifactId: artifact.publicId }, {
    maxAttempts: PATCH_CHECK_ATTEMPTS,
    key: `check-patch:${artifact.publicId}:${payload}`,
  });
}

/**
 * The one approval path (an admin, or the system for an auto-approval: `actor.userId` null):
 * update, then publish in the same transaction. Null when the artifact is no longer pending.
 */
export async function approveIn(
  deps: WorkforceServiceDeps,
  tx: Queryable,
  actor: Actor,
  input: { artifact: ArtifactRow; employee: EmployeeRow; editedPayload: string | null },
): Promise<ArtifactRow | null> {
  const { artifact, employee, editedPayload } = input;
  const reviewerId = actor.userId;
  const edited = editedPayload === null
    ? null
    : { payload: editedPayload, ...measureEdit(artifact.payload, editedPayload) };
  const approved = await store.approveArtifact(
    tx,
    artifact.id,
    { reviewerId, edited },
    deps.clock.now(),
  );
  if (!approved) return null;
  if (edited && approved.kind === "code_patch") {
    await enqueuePatchCheck(deps, tx, approved, "edited");
  }
  await deps.events.publish(tx, "ai_workforce.artifact_approved", {
    artifactId: approved.publicId,
    kind: approved.kind,
    employeeId: employee.publicId,
  });
  deps.log.info("artifact approved", {
    artifact_id: approved.publicId,
    reviewer: reviewerId === null ? "system" : "admin",
    heavy_edit: edited?.heavy ?? false,
  });
  return approved;
}

/**
 * One review of a pending artifact: an unknown artifact, the `problem` of the input with it, a
 * decision already taken, or one taken meanwhile (`decide` found nothing to change) are refused.
 */
async function review(
  deps: WorkforceServiceDeps,
  artifactId: string,
  decision: "approved" | "rejected",
  problemOf: (artifact: ArtifactRow) => WorkforceError | null,
  decide: (artifact: ArtifactRow) => Promise<ArtifactRow | null>,
): Promise<ArtifactPayload> {
  const artifact = await findArtifact(deps, artifactId);
  if (!artifact) return refused(...notFound("AI artifact", "artifactId"));
  const problem = problemOf(artifact);
  if (problem) return refused(problem);
  const refusal = reviewError(artifact.approvalStatus, decision);
  if (refusal) return refused(refuse("not_allowed", refusal, "artifactId"));
  const decided = await decide(artifact);
  if (decided) return { artifact: decided, errors: [] };
  return refused(refuse("conflict", REVIEWED_MEANWHILE, "artifactId"));
}

/**
 * `approveAiArtifact`: approves a pending artifact, with `editedPayload` replacing its payload; a
 * code patch that touches a protected path, or whose edit is no longer a patch, is refused.
 */
export function approveArtifact(
  deps: WorkforceServiceDeps,
  actor: Actor,
  input: { artifactId: string; editedPayload: string | null },
): Promise<ArtifactPayload> {
  const edited = input.editedPayload;
  const problemOf = (artifact: ArtifactRow): WorkforceError | null => {
    const invalid = edited === null
      ? null
      : editedPayloadError(edited) ?? editedPatchError(artifact.kind, edited);
    if (invalid !== null) return refuse("invalid", invalid, "editedPayload");
    const protectedPath = protectedPatchError(
      artifact.kind,
      edited ?? artifact.payload,
      deps.config.protectedPaths,
    );
    return protectedPath === null ? null : refuse(
      "protected_path",
      protectedPath,
      edited === null ? "artifactId" : "editedPayload",
    );
  };
  return review(
    deps,
    input.artifactId,
    "approved",
    problemOf,
    (artifact) =>
      deps.db.sql.begin(async (tx) => {
        const [employee] = await store.employeesByIds(tx, [artifact.employeeId]);
        return await approveIn(deps, tx, actor, { artifact, employee, editedPayload: edited });
      }) as Promise<ArtifactRow | null>,
  );
}

/**
 * `undoAiArtifactApproval`: an approved artifact whose delivery has not started goes back to
 * pending (its edit dropped); its delayed delivery job then finds the approval gone. A code patch
 * whose edit dropped the patch check is checked again.
 */
export async function undoApproval(
  deps: WorkforceServiceDeps,
  _actor: { userId: string },
  input: { artifactId: string },
): Promise<ArtifactPayload> {
  const artifact = await findArtifact(deps, input.artifactId);
  if (!artifact) return refused(...notFound("AI artifact", "artifactId"));
  const undone = await deps.db.sql.begin(async (tx) => {
    const row = await store.undoApproval(tx, artifact.id);
    if (row && row.kind === "code_patch" && artifact.originalPayload !== null) {
      await enqueuePatchCheck(deps, tx, row, "stored");
    }
    return row;
  }) as ArtifactRow | null;
  if (!undone) {
    return refused(refuse("not_undoable", UNDO_REFUSED(artifact.approvalStatus), "artifactId"));
  }
  deps.log.info("artifact approval undone", { artifact_id: undone.publicId });
  return { artifact: undone, errors: [] };
}

const UNDO_REFUSED = (status: string) =>
  status === "approved"
    ? "the delivery has started: the approval can no longer be undone"
    : `only an approved artifact's approval can be undone (this one is ${status})`;

/** `rejectAiArtifact`: rejects a pending artifact; the reason joins the employee's memory. */
export function rejectArtifact(
  deps: WorkforceServiceDeps,
  actor: { userId: string },
  input: { artifactId: string; rejectionReason: string },
): Promise<ArtifactPayload> {
  const problem = rejectionReasonError(input.rejectionReason);
  const reason = input.rejectionReason.trim();
  return review(
    deps,
    input.artifactId,
    "rejected",
    () => problem === null ? null : refuse("invalid", problem, "rejectionReason"),
    (artifact) =>
      deps.db.sql.begin(async (tx) => {
        const now = deps.clock.now();
        const rejected = await store.rejectArtifact(tx, artifact.id, actor.userId, reason, now);
        if (rejected) await appendRecentRejection(tx, artifact.employeeId, reason, now);
        return rejected;
      }) as Promise<ArtifactRow | null>,
  );
}

/** Appends a rejection reason to `recent_rejections` (FIFO, the newest few) under a row lock. */
async function appendRecentRejection(
  tx: Queryable,
  employeeId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await store.ensureRecentRejections(tx, employeeId, now);
  const current = await store.lockRecentRejections(tx, employeeId);
  await store.saveRecentRejections(tx, employeeId, appendRejection(current, reason), now);
}
