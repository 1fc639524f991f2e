/**
 * Pushing notifications to devices. A notification stored by `notify` queues one fan-out job in
 * the sender's transaction (so nothing is pushed for a rolled-back one, and a push never fails the
 * sender); the fan-out finds the recipients' devices on the configured platforms and queues one
 * send job per device. A send makes one bounded request through the platform's adapter: a token
 * the provider reports gone is deleted, a temporary failure (5xx, 429, timeout) is tried again
 * later by a new job (at most {@link MAX_PUSH_ATTEMPTS} attempts, waits bounded by
 * `MAX_PUSH_WAIT_MS`), anything else is logged and given up. A provider's trouble never makes a
 * job fail, so it never fills the dead set. Both jobs complete themselves (`job.complete`): the
 * fan-out in the transaction that queues the sends, a send right after the provider answered, so
 * neither runs again once it has run, even when its worker is killed before the worker's batch.
 */
import type { Clock } from "../../../platform/clock.ts";
import type { Database, Queryable } from "../../../platform/db.ts";
import { type JobInfo, jobKind } from "../../../platform/jobs/types.ts";
import type { Logger } from "../../../platform/log.ts";
import type { PushProvider } from "../../../platform/push/mod.ts";
import type { FeatureJobs } from "../../feature.ts";
import { toView } from "../rules.ts";
import {
  MAX_PUSH_ATTEMPTS,
  pushMessageOf,
  type PushPlatform,
  pushRetryDelayMs,
} from "../rules/push.ts";
import * as devices from "../devices-store.ts";
import * as store from "../store.ts";

/** The configured adapters, by platform (none: push is off). */
export type PushProviders = Partial<Record<PushPlatform, PushProvider>>;

export interface PushDeps {
  db: Database;
  jobs: Pick<FeatureJobs, "enqueue" | "enqueueMany">;
  clock: Clock;
  log: Logger;
  providers: PushProviders;
}

/** Finds the devices of stored notifications' users and queues a send to each. */
export const pushJob = jobKind<{ ids: string[] }>("notifications.push");
/** One notification to one device; `attempt` counts from 1. */
export const pushSendJob = jobKind<{ notificationId: string; deviceId: string; attempt: number }>(
  "notifications.push_send",
);

/** What `notify` calls inside the sender's transaction. */
export interface PushQueue {
  queue(tx: Queryable, ids: readonly string[]): Promise<void>;
}

/** The queue of pushes, or null when no platform is configured (push is off). */
export function pushQueue(deps: Pick<PushDeps, "jobs" | "providers">): PushQueue | null {
  if (Object.keys(deps.providers).length === 0) return null;
  return {
    async queue(tx, ids) {
      if (ids.length === 0) return;
      await deps.jobs.enqueue(tx, pushJob, { ids: [...ids] }, {
        key: `push:${ids[0]}:${ids.length}`,
        maxAttempts: 5,
      });
    },
  };
}

/** Completes the job that runs a use case (`JobInfo.complete`). */
export type JobCompletion = Pick<JobInfo, "complete">;

/** The `notifications.push` job: one send job per (notification, device). */
export async function fanOut(
  deps: PushDeps,
  input: { ids: string[] },
  job: JobCompletion,
): Promise<number> {
  const sql = deps.db.sql;
  const rows = await store.notificationsByIds(sql, input.ids);
  const found = await devices.devicesOfUsers(
    sql,
    [...new Set(rows.map((r) => r.userId))],
    Object.keys(deps.providers),
  );
  const jobs = rows.flatMap((row) =>
    found.filter((d) => d.userId === row.userId).map((d) => ({
      kind: pushSendJob,
      payload: { notificationId: row.id, deviceId: d.id, attempt: 1 },
      options: { key: `push:${row.id}:${d.id}:1`, maxAttempts: 3 },
    }))
  );
  if (jobs.length === 0) return 0;
  // A send's key is free again once it ran: a repeated fan-out would push twice.
  return await sql.begin(async (tx) => {
    const queued = await deps.jobs.enqueueMany(tx, jobs);
    if (!(await job.complete(tx))) throw new Error("another worker took over the push fan-out");
    return queued;
  });
}

/** The `notifications.push_send` job: one request to the device's provider, and its outcome. */
export async function sendToDevice(
  deps: PushDeps,
  input: { notificationId: string; deviceId: string; attempt: number },
  job: JobCompletion,
): Promise<void> {
  const sql = deps.db.sql;
  const [row] = await store.notificationsByIds(sql, [input.notificationId]);
  const device = await devices.deviceById(sql, input.deviceId);
  // Gone meanwhile, moved to another user, or read already: nothing to push.
  if (!row || !device || device.userId !== row.userId || row.acknowledgedAt) return;
  const provider = deps.providers[device.platform];
  if (!provider) return;
  const outcome = await provider.send(device.token, pushMessageOf(toView(row)));
  const fields = {
    platform: device.platform,
    device_id: device.publicId,
    notification_id: row.publicId,
    attempt: input.attempt,
  };
  if (outcome.kind !== "retry" || input.attempt >= MAX_PUSH_ATTEMPTS) await job.complete();
  switch (outcome.kind) {
    case "sent":
      deps.log.debug("push sent", fields);
      return;
    case "gone": {
      const removed = await devices.deleteGoneDevice(sql, device.id, device.updatedAt);
      deps.log.info("push device gone", { ...fields, reason: outcome.reason, removed });
      return;
    }
    case "failed":
      deps.log.warn("push refused", { ...fields, reason: outcome.reason });
      return;
    case "retry": {
      if (input.attempt >= MAX_PUSH_ATTEMPTS) {
        deps.log.warn("push given up", { ...fields, reason: outcome.reason });
        return;
      }
      const waitMs = pushRetryDelayMs(input.attempt, outcome.retryAfterMs);
      const next = input.attempt + 1;
      await sql.begin(async (tx) => {
        await deps.jobs.enqueue(tx, pushSendJob, { ...input, attempt: next }, {
          key: `push:${row.id}:${device.id}:${next}`,
          maxAttempts: 3,
          runAt: new Date(deps.clock.now().getTime() + waitMs),
        });
        if (!(await job.complete(tx))) throw new Error("another worker took over the push");
      });
      deps.log.info("push will be retried", {
        ...fields,
        reason: outcome.reason,
        wait_ms: waitMs,
      });
      return;
    }
  }
}
