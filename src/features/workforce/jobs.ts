/**
 * The workforce's job kinds (docs/workforce.md, docs/delivery.md). Names are stored with queued
 * jobs: renaming one strands the jobs already queued under it.
 */
import { jobKind } from "../../platform/jobs/types.ts";
import type { AlertLevel } from "./rules.ts";

/** POST the run to the runner (3 attempts with backoff). */
export const dispatchJob = jobKind<{ runId: string }>("ai_workforce.dispatch_run");
export const DISPATCH_ATTEMPTS = 3;

/** One chat post (budget alerts, blocked triggers). */
export const chatAlertJob = jobKind<{
  subject: string;
  level: AlertLevel | "trigger_blocked";
  text: string;
}>("ai_workforce.chat_alert");

/**
 * Delivers one approved artifact; keyed `deliver:<artifactId>` (a retry) or
 * `deliver:<artifactId>@<approvedAt>` (an approval). With `approvedAt`, the job is for that
 * approval only: one undone meanwhile makes it a no-op.
 */
export const deliveryJob = jobKind<{ artifactId: string; approvedAt?: string }>(
  "ai_workforce.deliver_artifact",
);

/** Checks whether a pending code patch applies at its base (docs/delivery.md, "Code patches"). */
export const patchCheckJob = jobKind<{ artifactId: string }>("ai_workforce.check_patch");
/** GitHub answering an error or not at all is tried again twice before `not_checked`. */
export const PATCH_CHECK_ATTEMPTS = 3;
