/** Pure rules of the hourly `streak.at_risk` reminder. */
import { localDate } from "../../../platform/dates.ts";

/** The local hour (0-23) in which `streak.at_risk` is sent: 20:00-20:59 in the user's zone. */
export const STREAK_REMINDER_HOUR = 20;

/** Habit titles named in one `streak.at_risk` notification before "and N more". */
export const REMINDER_TITLES = 3;

/** One formatter per zone, reading the wall-clock hour (00-23). */
const hourFormatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock hour (0-23) of `instant` in the IANA zone `timeZone`. */
export function localHour(instant: Date, timeZone: string): number {
  let f = hourFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hour: "2-digit", hourCycle: "h23" });
    if (hourFormatters.size >= 1000) hourFormatters.clear();
    hourFormatters.set(timeZone, f);
  }
  return Number(f.formatToParts(instant).find((p) => p.type === "hour")?.value);
}

/**
 * The zones among `zones` whose local time at `now` is in the reminder hour, each with its local
 * date; zones the runtime does not know are skipped.
 */
export function streakReminderZones(
  now: Date,
  zones: readonly string[],
): { timeZone: string; date: string }[] {
  const found: { timeZone: string; date: string }[] = [];
  for (const timeZone of zones) {
    try {
      if (localHour(now, timeZone) === STREAK_REMINDER_HOUR) {
        found.push({ timeZone, date: localDate(now, timeZone) });
      }
    } catch {
      // An unknown zone reminds no one rather than stopping the run for every other zone.
    }
  }
  return found;
}

/**
 * One batch of the streak reminder (a job's payload): the schedule's slot, the zones in the
 * reminder hour still to walk (the first is being walked), the last user id done in it, and how
 * many users a batch reads.
 */
export interface ReminderBatch {
  slot: string;
  zones: { timeZone: string; date: string }[];
  after: string | null;
  size: number;
}

/**
 * The batch after one that read the users `page` (ids, ascending): the zone's next users after
 * a full page, else the next zone's first, else none.
 */
export function nextReminderBatch(
  batch: ReminderBatch,
  page: readonly string[],
): ReminderBatch | null {
  if (page.length === batch.size) return { ...batch, after: page[page.length - 1] };
  if (batch.zones.length > 1) return { ...batch, zones: batch.zones.slice(1), after: null };
  return null;
}

/** The key of a batch's job: a batch queued twice (a retried batch queues its next) runs once. */
export const reminderBatchKey = (batch: ReminderBatch) =>
  `goals.streak_at_risk:${batch.slot}:${batch.zones[0].timeZone}:${batch.after ?? "first"}`;

/** The once-a-day key of a user's `streak.at_risk` (internal user id, local date). */
export const streakAtRiskKey = (userId: string, date: string) => `streak.at_risk:${userId}:${date}`;

/** The text of `streak.at_risk`, naming the habits at risk (the first few of them). */
export function streakAtRiskNotice(titles: readonly string[]): string {
  const named = titles.slice(0, REMINDER_TITLES).map((t) => `"${t}"`);
  const more = titles.length - named.length;
  const list = more > 0
    ? `${named.join(", ")} and ${more} more`
    : named.length > 1
    ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`
    : named[0];
  const streaks = titles.length > 1 ? "streaks" : "streak";
  return `Your ${streaks} on ${list} ${
    titles.length > 1 ? "are" : "is"
  } at risk: check in before the day ends.`;
}
