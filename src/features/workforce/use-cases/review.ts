/**
 * Use cases of review (spec 3.2): `approveArtifact` and `rejectArtifact` by an admin, and the one
 * approval path that auto-approval shares; `undoApproval`. Each takes an idempotency key; a
 * repeat of the same admin's approval or rejection answers the artifact with a flag.
 */
import type { Queryable } from "../../../platform/db.ts";
import { type IdempotencyInput, type RetrySafe, retrySafe } from "../../../platform/idempotency.ts";
import { editedEmailError, editedPatchError, protectedPatchError } from "../delivery/rules.ts";
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
  /** True when the same admin had approved it so already (a repeat). */
  alreadyApproved?: boolean;
  /** True when the same admin had rejected it with the same reason already (a repeat). */
  alreadyRejected?: boolean;
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
 * decision already taken, or one taken meanwhile (`decide` found nothing to change) are refused;
 * the same decision by the same admin already taken (`repeated`, also after a concurrent one)
 * answers the artifact as it is with the flag `already`. Keyed: the decision is taken in the
 * key's transaction, and an answer decided outside it yields to a concurrent first request's.
 */
async function review(
  deps: WorkforceServiceDeps,
  retry: RetrySafe<ArtifactPayload>,
  input: { artifactId: string },
  decision: {
    problemOf: (artifact: ArtifactRow) => WorkforceError | null;
    repeated: (artifact: ArtifactRow) => boolean;
    already: "alreadyApproved" | "alreadyRejected";
    status: "approved" | "rejected";
    decide: (tx: Queryable, artifact: ArtifactRow) => Promise<ArtifactRow | null>;
  },
): Promise<ArtifactPayload> {
  if (retry.earlier) return retry.earlier;
  const outside = (answer: ArtifactPayload) => retry.unlessAnswered(answer);
  const artifact = await findArtifact(deps, input.artifactId);
  if (!artifact) return await outside(refused(...notFound("AI artifact", "artifactId")));
  const problem = decision.problemOf(artifact);
  if (problem) return refused(problem);
  const repeat = (current: ArtifactRow) =>
    outside({ artifact: current, [decision.already]: true, errors: [] });
  if (decision.repeated(artifact)) return await repeat(artifact);
  const refusal = reviewError(artifact.approvalStatus, decision.status);
  if (refusal) return await outside(refused(refuse("not_allowed", refusal, "artifactId")));
  const decided = await retry.transaction(async (tx) => {
    const row = await decision.decide(tx, artifact);
    return row
      ? { artifact: row, errors: [] }
      : refused(refuse("conflict", REVIEWED_MEANWHILE, "artifactId"));
  });
  if (decided.errors[0]?.code !== "conflict") return decided;
  // A concurrent repeat of the same decision got there first: the artifact as it is.
  const now = await findArtifact(deps, input.artifactId);
  return now && decision.repeated(now) ? await repeat(now) : await outside(decided);
}

/**
 * `approveAiArtifact`: approves a pending artifact, with `editedPayload` replacing its payload; a
 * code patch that touches a protected path, or whose edit is no longer a patch, and an email
 * template written as JSON fields whose edit no longer has them, are refused.
 */
export async function approveArtifact(
  deps: WorkforceServiceDeps,
  actor: { userId: string },
  input: { artifactId: string; editedPayload: string | null } & IdempotencyInput,
): Promise<ArtifactPayload> {
  const retry = await retrySafe(deps, "approveAiArtifact", actor.userId, input, refused);
  const edited = input.editedPayload;
  const problemOf = (artifact: ArtifactRow): WorkforceError | null => {
    const invalid = edited === null
      ? null
      : editedPayloadError(edited) ?? editedPatchError(artifact.kind, edited) ??
        editedEmailError(artifact.kind, artifact.payload, edited);
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
  return await review(deps, retry, input, {
    problemOf,
    // Approved by this admin, with this edit (or none): what this request asks for holds.
    repeated: (a) =>
      a.approvalStatus === "approved" && a.reviewerId === actor.userId &&
      (edited === null ? a.originalPayload === null : a.originalPayload !== null &&
        a.payload === edited),
    already: "alreadyApproved",
    status: "approved",
    decide: async (tx, artifact) => {
      const [employee] = await store.employeesByIds(tx, [artifact.employeeId]);
      return await approveIn(deps, tx, actor, { artifact, employee, editedPayload: edited });
    },
  });
}

/**
 * `undoAiArtifactApproval`: an approved artifact whose delivery has not started goes back to
 * pending (its edit dropped); its delayed delivery job then finds the approval gone. A code patch
 * whose edit dropped the patch check is checked again. `undone` is told of the artifact after
 * the commit, only when this request undid it (not for a keyed retry's replay).
 */
export async function undoApproval(
  deps: WorkforceServiceDeps,
  actor: { userId: string },
  input: { artifactId: string } & IdempotencyInput,
  undone: (artifact: ArtifactRow) => Promise<void> = async () => {},
): Promise<ArtifactPayload> {
  const retry = await retrySafe(deps, "undoAiArtifactApproval", actor.userId, input, refused);
  if (retry.earlier) return retry.earlier;
  const artifact = await findArtifact(deps, input.artifactId);
  if (!artifact) return refused(...notFound("AI artifact", "artifactId"));
  let undoneHere: ArtifactRow | null = null;
  const answer = await retry.transaction(async (tx) => {
    const row = await store.undoApproval(tx, artifact.id);
    if (!row) {
      return refused(refuse("not_undoable", UNDO_REFUSED(artifact.approvalStatus), "artifactId"));
    }
    if (row.kind === "code_patch" && artifact.originalPayload !== null) {
      await enqueuePatchCheck(deps, tx, row, "stored");
    }
    undoneHere = row;
    return { artifact: row, errors: [] };
  });
  if (answer.errors.length) return await retry.unlessAnswered(answer);
  if (undoneHere) {
    deps.log.info("artifact approval undone", { artifact_id: artifact.publicId });
    await undone(undoneHere);
  }
  return answer;
}

const UNDO_REFUSED = (status: string) =>
  status === "approved"
    ? "the delivery has started: the approval can no longer be undone"
    : `only an approved artifact's approval can be undone (this one is ${status})`;

/** `rejectAiArtifact`: rejects a pending artifact; the reason joins the employee's memory. */
export async function rejectArtifact(
  deps: WorkforceServiceDeps,
  actor: { userId: string },
  input: { artifactId: string; rejectionReason: string } & IdempotencyInput,
): Promise<ArtifactPayload> {
  const retry = await retrySafe(deps, "rejectAiArtifact", actor.userId, input, refused);
  const problem = rejectionReasonError(input.rejectionReason);
  const reason = input.rejectionReason.trim();
  return await review(deps, retry, input, {
    problemOf: () => problem === null ? null : refuse("invalid", problem, "rejectionReason"),
    // Rejected by this admin for this reason: what this request asks for holds.
    repeated: (a) =>
      a.approvalStatus === "rejected" && a.reviewerId === actor.userId &&
      a.rejectionReason === reason,
    already: "alreadyRejected",
    status: "rejected",
    decide: async (tx, artifact) => {
      const now = deps.clock.now();
      const rejected = await store.rejectArtifact(tx, artifact.id, actor.userId, reason, now);
      if (rejected) await appendRecentRejection(tx, artifact.employeeId, reason, now);
      return rejected;
    },
  });
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
