/** The hourly streak-at-risk reminder (the `goals.streak_at_risk` schedule). */
import {
  REMINDER_TITLES,
  streakAtRiskKey,
  streakAtRiskNotice,
  streakReminderZones,
} from "../rules.ts";
import * as store from "../store.ts";
import { type GoalsDeps } from "./shared.ts";

/**
 * Sends `streak.at_risk` to the users whose local time at `slot` (the schedule's hour, however
 * late the job runs) is in the reminder hour and who have a
 * habit due today, not checked in, with a streak to lose: once per user and local date (the key),
 * muted users excepted (the insert checks). A fixed number of statements whatever the number of users.
 */
export async function remindStreaksAtRisk(deps: GoalsDeps, slot: Date): Promise<number> {
  const zones = streakReminderZones(slot, await store.userTimeZones(deps.db.sql));
  if (zones.length === 0) return 0;
  return await deps.db.sql.begin(async (tx) => {
    const atRisk = await store.habitsAtRisk(tx, zones);
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
