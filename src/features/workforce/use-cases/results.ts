/**
 * Use cases of the runner's signed result (`POST /webhooks/ai-workforce`): the run it names, and
 * `concludeFromResult`, which stores the outcome, the memory and the artifact, and then either
 * auto-approves the artifact or leaves it waiting for review.
 */
import type { RunResultBody } from "../../../platform/contract/mod.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import { protectedPatchError } from "../delivery/rules.ts";
import {
  autoApproves,
  initialApprovalStatus,
  kindRefusal,
  resultErrorMessage,
  skippedReasonOf,
} from "../rules.ts";
import * as store from "../store.ts";
import type { RunRow } from "../store.ts";
import { approveIn, enqueuePatchCheck } from "./review.ts";
import { type Actor, SYSTEM, type WorkforceServiceDeps } from "./shared.ts";

/** The run a result names; null when `runId` names none. */
export async function runOfResult(
  deps: Pick<WorkforceServiceDeps, "db">,
  runId: string,
): Promise<RunRow | null> {
  return looksLikePublicId(runId) ? await store.runByPublicId(deps.db.sql, runId) : null;
}

/** The role of the employee of `run` (the spend metric's label); null when none. */
export async function roleOfRun(
  deps: Pick<WorkforceServiceDeps, "db">,
  run: RunRow,
): Promise<string | null> {
  const [employee] = await store.employeesByIds(deps.db.sql, [run.employeeId]);
  return employee?.role ?? null;
}

/**
 * Concludes a run from the runner's result: `concluded`; `late` when the run had already ended
 * without a result (the stale sweep, a cancel), whose usage is then recorded so monthly spend
 * counts it, the run staying failed and any artifact dropped; `duplicate` for a repeat.
 */
export async function concludeFromResult(
  deps: WorkforceServiceDeps,
  _actor: Actor,
  input: { run: RunRow; result: RunResultBody },
): Promise<"concluded" | "late" | "duplicate"> {
  const { run, result } = input;
  const { log, config } = deps;
  return await deps.db.sql.begin(async (tx) => {
    const now = deps.clock.now();
    const figures = {
      inputTokens: result.usage.input_tokens,
      outputTokens: result.usage.output_tokens,
      numTurns: result.usage.num_turns,
      costUsd: result.usage.cost_usd,
      runLog: result.run_log,
    };
    const concluded = await store.concludeRun(tx, run.id, {
      ...figures,
      status: result.status,
      skippedReason: skippedReasonOf(result),
      errorMessage: resultErrorMessage(result),
    }, now);
    if (!concluded) {
      if (!(await store.recordLateResult(tx, run.id, figures, now))) return "duplicate";
      log.warn("late run result: usage recorded, the run stays failed", {
        run_id: run.publicId,
        result_status: result.status,
        cost_usd: result.usage.cost_usd,
        artifact_dropped: result.artifact !== null,
      });
      return "late";
    }
    if (result.status !== "succeeded") return "concluded";
    const [employee] = await store.employeesByIds(tx, [run.employeeId]);
    // The run's facts, and the service-owned cursor of a tool, advance only with a success.
    await store.upsertMemories(tx, employee.id, result.memory, now);
    if (!result.artifact) return "concluded"; // a preflight skipped the run
    // The runner refuses a kind outside the list; a result that carries one anyway is refused
    // here too, so no autonomy level can ever approve it.
    const kindRefused = kindRefusal(employee.allowedKinds, result.artifact.kind);
    const metadata = result.artifact.metadata;
    const unsupportedFigures = metadata?.unsupported_figures ?? null;
    const isPatch = result.artifact.kind === "code_patch";
    const artifact = await store.insertArtifact(tx, {
      runId: run.id,
      employeeId: employee.id,
      kind: result.artifact.kind,
      title: result.artifact.title,
      payload: result.artifact.payload,
      approvalStatus: kindRefused ? "auto_rejected" : initialApprovalStatus(result.post_filter),
      postFilterReason: result.post_filter?.passed === false ? result.post_filter.reason : null,
      rejectionReason: kindRefused,
      unsupportedFigures,
      baseSha: isPatch ? metadata?.base_sha ?? null : null,
      patchFiles: isPatch ? metadata?.files ?? null : null,
    }, now);
    if (kindRefused) {
      log.warn("artifact refused: kind not allowed", {
        run_id: run.publicId,
        kind: result.artifact.kind,
        allowed_kinds: employee.allowedKinds,
      });
    }
    if (artifact?.approvalStatus === "pending") {
      // An archived employee's last artifact waits for a person, whatever its autonomy, and so
      // does a patch touching a protected path (a person rejects it or edits that change out).
      if (
        !employee.archivedAt &&
        autoApproves(employee.autonomyLevel, artifact.kind, unsupportedFigures ?? []) &&
        !protectedPatchError(artifact.kind, artifact.payload, config.protectedPaths)
      ) {
        await approveIn(deps, tx, SYSTEM, { artifact, employee, editedPayload: null });
      } else {
        if (artifact.kind === "code_patch") {
          await enqueuePatchCheck(deps, tx, artifact, "stored");
        }
        // Streamed to `pendingArtifactAdded` after commit (never for a rolled-back result).
        await deps.events.publish(tx, "ai_workforce.artifact_pending", {
          artifactId: artifact.publicId,
          kind: artifact.kind,
          employeeId: employee.publicId,
        });
      }
    }
    return "concluded";
  }) as "concluded" | "late" | "duplicate";
}
