/**
 * croner's options for a time zone. UTC is given as a zero offset: croner then reads the UTC
 * fields of a date directly, where a named zone goes through `Intl.DateTimeFormat` for every
 * candidate time (the first one loads ICU's zone data on the start-up path, and each later one
 * costs a `formatToParts`). UTC has no daylight saving, so both give the same times.
 */
import type { Cron, CronOptions } from "croner";

const UTC_NAMES = new Set(["UTC", "Etc/UTC"]);

export function cronZone(timezone: string): Pick<CronOptions, "timezone" | "utcOffset"> {
  return UTC_NAMES.has(timezone) ? { utcOffset: 0 } : { timezone };
}

/**
 * The slot a tick that ran at `ran` is for: the latest time of the schedule at or before it. A tick
 * that ran late (a busy event loop) still names the same slot as the other instances' ticks, which
 * is what makes a slot fire once across them.
 */
export function scheduledSlot(cron: Cron, ran: Date): Date {
  // croner's previous runs are strictly before the reference: 1 ms later includes `ran` itself.
  return cron.previousRuns(1, new Date(ran.getTime() + 1))[0] ?? ran;
}
