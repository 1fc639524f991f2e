/**
 * The hourly streak-at-risk reminder (the `goals.streak_at_risk` schedule), in bounded batches:
 * the schedule finds the zones in the reminder hour and queues the first batch; each batch job
 * reads at most `size` users of one zone, writes the reminders of those at risk and queues the
 * next batch, in one transaction (docs/jobs.md, "Fan-out"). A batch run again writes nothing twice
 * (each reminder has its key) and queues no second next batch while the first waits (the job's
 * key); run after it, it walks the rest again, writing nothing.
 */
import { jobKind } from "../../../platform/jobs/types.ts";
import {
  nextReminderBatch,
  REMINDER_TITLES,
  type ReminderBatch,
  reminderBatchKey,
  streakAtRiskKey,
  streakAtRiskNotice,
  streakReminderZones,
} from "../rules.ts";
import * as store from "../store.ts";
import { type GoalsDeps } from "./shared.ts";

export const reminderBatchJob = jobKind<ReminderBatch>("goals.streak_at_risk_batch");

/**
 * The schedule: the zones whose local time at `slot` (the schedule's hour, however late the job
 * runs) is in the reminder hour, walked from their first users.
 */
export async function remindStreaksAtRisk(
  deps: Pick<GoalsDeps, "db" | "jobs" | "fanOutBatchSize">,
  slot: Date,
): Promise<void> {
  const zones = streakReminderZones(slot, await store.userTimeZones(deps.db.sql));
  if (zones.length === 0) return;
  const first = { slot: slot.toISOString(), zones, after: null, size: deps.fanOutBatchSize };
  await deps.jobs.enqueue(deps.db.sql, reminderBatchJob, first, { key: reminderBatchKey(first) });
}

/**
 * One batch (the `goals.streak_at_risk_batch` job): sends `streak.at_risk` to those of its users
 * who have a habit due today, not checked in, with a streak to lose: once per user and local date
 * (the key), muted users excepted (the insert checks). Notifications stored.
 */
export async function remindBatch(
  deps: Pick<GoalsDeps, "db" | "jobs" | "notifications">,
  batch: ReminderBatch,
): Promise<number> {
  const [zone] = batch.zones;
  return await deps.db.sql.begin(async (tx) => {
    const users = await store.usersInZone(tx, zone.timeZone, batch.after, batch.size);
    const next = nextReminderBatch(batch, users);
    if (next) await deps.jobs.enqueue(tx, reminderBatchJob, next, { key: reminderBatchKey(next) });
    const atRisk = await store.habitsAtRisk(tx, users, zone.date);
    return await deps.notifications.notifyMany(
      tx,
      atRisk.map((r) => ({
        userId: r.userId,
        message: {
          kind: "streak.at_risk",
          content: streakAtRiskNotice(r.titles),
          actorId: null,
          subject: { type: "goal", id: r.goalIds[0] },
          args: {
            habitTitle: r.titles.slice(0, REMINDER_TITLES),
            habitCount: String(r.titles.length),
          },
        },
        key: streakAtRiskKey(r.userId, r.date),
      })),
    );
  });
}
