/** What the workforce use cases share: their deps, the actor, lookups by public id, alerts. */
import type { Config } from "../../../config.ts";
import type { Clock } from "../../../platform/clock.ts";
import type { Database, Queryable } from "../../../platform/db.ts";
import { looksLikePublicId } from "../../../platform/ids.ts";
import type { Logger } from "../../../platform/log.ts";
import type { EventPublisher } from "../../events.ts";
import type { JobQueue } from "../../feature.ts";
import { chatAlertJob } from "../jobs.ts";
import type { RunnerClient } from "../runner-client.ts";
import { type AlertLevel, levelsSettledBy, monthOf } from "../rules.ts";
import * as store from "../store.ts";
import type { ArtifactRow, EmployeeRow, RunRow } from "../store.ts";

export interface WorkforceServiceDeps {
  config: Config;
  db: Pick<Database, "sql">;
  clock: Clock;
  log: Logger;
  fetch: typeof fetch;
  jobs: JobQueue;
  events: EventPublisher;
  /** The agent runner's HTTP API. */
  runner: RunnerClient;
}

/** Who acts: an admin (their user id), or the system (null: schedules, jobs, the seed command). */
export interface Actor {
  userId: string | null;
}

export const SYSTEM: Actor = { userId: null };

export function findEmployee(
  deps: Pick<WorkforceServiceDeps, "db">,
  id: string,
): Promise<EmployeeRow | null> {
  return looksLikePublicId(id) ? store.employeeByPublicId(deps.db.sql, id) : Promise.resolve(null);
}

export function findRun(
  deps: Pick<WorkforceServiceDeps, "db">,
  id: string,
): Promise<RunRow | null> {
  return looksLikePublicId(id) ? store.runByPublicId(deps.db.sql, id) : Promise.resolve(null);
}

export function findArtifact(
  deps: Pick<WorkforceServiceDeps, "db">,
  id: string,
): Promise<ArtifactRow | null> {
  return looksLikePublicId(id) ? store.artifactByPublicId(deps.db.sql, id) : Promise.resolve(null);
}

/** Claims the alert once per (subject, month, level) and enqueues the chat post, inside `tx`. */
export async function alertOnce(
  deps: Pick<WorkforceServiceDeps, "clock" | "jobs">,
  tx: Queryable,
  alert: { subject: string; level: AlertLevel | "trigger_blocked"; text: string },
): Promise<boolean> {
  const { subject, level, text } = alert;
  const now = deps.clock.now();
  const month = monthOf(now).label;
  const first = await store.claimAlert(tx, subject, month, level, now);
  if (level !== "trigger_blocked") {
    for (const lower of levelsSettledBy(level)) {
      if (lower !== level) await store.claimAlert(tx, subject, month, lower, now);
    }
  }
  if (first) await deps.jobs.enqueue(tx, chatAlertJob, { subject, level, text });
  return first;
}

export const problemOf = (err: unknown) => err instanceof Error ? err.message : String(err);
